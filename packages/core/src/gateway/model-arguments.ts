import type { ArgumentIssue } from './results.js';

/** Limits on what a model may send as a tool's arguments, checked before anything parses them. */
export interface ArgumentLimits {
  /** Largest arguments, in characters of JSON (UTF-16 code units). @default 4194304 (4 MiB) */
  readonly maxChars: number;
  /** Deepest nesting of objects and arrays. @default 64 */
  readonly maxDepth: number;
}

/** The default {@link ArgumentLimits}. */
export const DEFAULT_ARGUMENT_LIMITS: ArgumentLimits = Object.freeze({
  maxChars: 4 * 1024 * 1024,
  maxDepth: 64,
});

/**
 * Keys refused anywhere in model arguments: in JavaScript they reach prototypes rather than data
 * (`{"__proto__": …}` through an assignment or a spread), so a tool, a merge or a remote server
 * could receive something other than what a human approved.
 */
export const FORBIDDEN_ARGUMENT_KEYS: ReadonlySet<string> = new Set([
  '__proto__',
  'constructor',
  'prototype',
]);

/** The outcome of {@link parseModelArguments}. */
export type ModelArgumentsOutcome =
  | { readonly ok: true; readonly args: Record<string, unknown> }
  | { readonly ok: false; readonly message: string; readonly issues: ArgumentIssue[] };

const fail = (message: string, path = ''): ModelArgumentsOutcome => ({
  ok: false,
  message,
  issues: [{ path, message }],
});

function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const proto = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

const shortPath = (path: string): string => (path.length > 200 ? `${path.slice(0, 200)}…` : path);

/**
 * Walks the arguments once, iteratively: counts their JSON size, checks their depth and refuses
 * forbidden keys. Shared references are counted each time they are reached, so a cycle or an
 * exponential DAG trips the size or depth limit instead of running forever.
 */
function checkShape(
  args: Record<string, unknown>,
  limits: ArgumentLimits,
): ModelArgumentsOutcome | undefined {
  let chars = 0;
  const stack: Array<[value: unknown, depth: number, path: string]> = [[args, 1, '']];
  while (stack.length > 0) {
    const [value, depth, path] = stack.pop()!;
    if (typeof value === 'string') chars += value.length + 2;
    else if (typeof value === 'number' || typeof value === 'boolean' || value === null) chars += 5;
    else if (typeof value === 'object') {
      if (depth > limits.maxDepth) {
        return fail(`Arguments are nested deeper than ${limits.maxDepth} levels.`, shortPath(path));
      }
      if (Array.isArray(value)) {
        chars += value.length + 2;
        for (let index = value.length - 1; index >= 0; index -= 1) {
          stack.push([value[index], depth + 1, path ? `${path}.${index}` : String(index)]);
        }
      } else {
        const keys = Object.keys(value);
        chars += keys.length + 2;
        for (const key of keys) {
          const child = path ? `${path}.${key}` : key;
          if (FORBIDDEN_ARGUMENT_KEYS.has(key)) {
            return fail(`The key "${key}" is not allowed in tool arguments.`, shortPath(child));
          }
          chars += key.length + 3;
          stack.push([(value as Record<string, unknown>)[key], depth + 1, child]);
        }
      }
    }
    if (chars > limits.maxChars) {
      return fail(`Arguments are larger than ${limits.maxChars} characters.`);
    }
  }
  return undefined;
}

/**
 * Turns what a model sent as a tool's arguments (a JSON string, an object, or nothing) into an
 * arguments object, or says why it cannot: not JSON, not an object, larger or deeper than the
 * limits, or holding a forbidden key (`__proto__`, `constructor`, `prototype`) at any depth. An
 * `approval` key at the top level is dropped: approvals come from the host, never from the model.
 * The one parser every adapter uses; it never throws.
 *
 * @example
 * ```ts
 * const parsed = parseModelArguments('{"path":"a.txt","approval":true}');
 * if (parsed.ok) parsed.args; // { path: 'a.txt' }
 * ```
 */
export function parseModelArguments(
  raw: unknown,
  limits: ArgumentLimits = DEFAULT_ARGUMENT_LIMITS,
): ModelArgumentsOutcome {
  let value = raw;
  if (value === undefined || value === null || value === '') return { ok: true, args: {} };
  if (typeof value === 'string') {
    if (value.length > limits.maxChars) {
      return fail(`Arguments are larger than ${limits.maxChars} characters.`);
    }
    try {
      value = JSON.parse(value);
    } catch {
      return fail('Arguments must be a JSON object; the text given is not valid JSON.');
    }
  }
  if (!isPlainObject(value)) return fail('Arguments must be a JSON object.');
  const problem = checkShape(value, limits);
  if (problem) return problem;
  if (!Object.hasOwn(value, 'approval')) return { ok: true, args: value };
  const args: Record<string, unknown> = {};
  for (const key of Object.keys(value)) if (key !== 'approval') args[key] = value[key];
  return { ok: true, args };
}
