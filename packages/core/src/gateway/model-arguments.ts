import { isPlainObject } from '../util/plain-object.js';
import { echoValue } from '../util/sanitize-message.js';
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

type Refusal = Extract<ModelArgumentsOutcome, { ok: false }>;

const fail = (message: string, path = ''): Refusal => ({
  ok: false,
  message,
  issues: [{ path, message }],
});

const shortPath = (path: string): string => (path.length > 200 ? `${path.slice(0, 200)}…` : path);

/**
 * Copies the arguments into fresh plain data, walking once, iteratively: counts their JSON size,
 * checks their depth, refuses forbidden keys, non-finite numbers and anything that is not JSON
 * data (functions, symbols, class instances, objects with `toJSON`). Every property is read once,
 * so a getter cannot show the digest one value and the tool another. Shared references are
 * copied each time they are reached, so a cycle or an exponential DAG trips the size or depth
 * limit instead of running forever.
 */
function copyPlain(
  args: Record<string, unknown>,
  limits: ArgumentLimits,
): { ok: true; value: Record<string, unknown> } | Refusal {
  let chars = 0;
  const root: Record<string, unknown> = {};
  type Frame = [
    source: unknown,
    target: Record<string, unknown> | unknown[],
    key: string | number,
    depth: number,
    path: string,
  ];
  const stack: Frame[] = [];
  const pushChildren = (
    source: object,
    target: Record<string, unknown> | unknown[],
    depth: number,
    path: string,
  ): Refusal | undefined => {
    if (Array.isArray(source)) {
      chars += source.length + 2;
      for (let index = source.length - 1; index >= 0; index -= 1) {
        stack.push([
          source[index],
          target,
          index,
          depth + 1,
          path ? `${path}.${index}` : String(index),
        ]);
      }
      return undefined;
    }
    const keys = Object.keys(source);
    chars += keys.length + 2;
    for (let index = keys.length - 1; index >= 0; index -= 1) {
      const key = keys[index]!;
      const child = path ? `${path}.${key}` : key;
      if (FORBIDDEN_ARGUMENT_KEYS.has(key)) {
        return fail(
          `The key "${echoValue(key, 40)}" is not allowed in tool arguments.`,
          shortPath(child),
        );
      }
      chars += key.length + 3;
      stack.push([(source as Record<string, unknown>)[key], target, key, depth + 1, child]);
    }
    return undefined;
  };
  const first = pushChildren(args, root, 1, '');
  if (first) return first;
  while (stack.length > 0) {
    const [value, target, key, depth, path] = stack.pop()!;
    let copy: unknown;
    if (typeof value === 'string') {
      chars += value.length + 2;
      copy = value;
    } else if (typeof value === 'boolean' || value === null) {
      chars += 5;
      copy = value;
    } else if (typeof value === 'number') {
      if (!Number.isFinite(value))
        return fail('Numbers in tool arguments must be finite.', shortPath(path));
      chars += 8;
      copy = value;
    } else if (typeof value === 'object') {
      if (depth > limits.maxDepth) {
        return fail(`Arguments are nested deeper than ${limits.maxDepth} levels.`, shortPath(path));
      }
      if (!Array.isArray(value) && !isPlainObject(value)) {
        return fail('Arguments must be plain JSON data.', shortPath(path));
      }
      if (!Array.isArray(value) && typeof (value as { toJSON?: unknown }).toJSON === 'function') {
        return fail('Arguments must be plain JSON data.', shortPath(path));
      }
      const container: Record<string, unknown> | unknown[] = Array.isArray(value) ? [] : {};
      copy = container;
      const problem = pushChildren(value, container, depth, path);
      if (problem) return problem;
    } else if (value === undefined && !Array.isArray(target)) {
      continue;
    } else {
      return fail('Arguments must be plain JSON data.', shortPath(path));
    }
    if (Array.isArray(target)) target[key as number] = copy;
    else target[key as string] = copy;
    if (chars > limits.maxChars) {
      return fail(`Arguments are larger than ${limits.maxChars} characters.`);
    }
  }
  if (chars > limits.maxChars)
    return fail(`Arguments are larger than ${limits.maxChars} characters.`);
  return { ok: true, value: root };
}

/**
 * Turns what a model sent as a tool's arguments (a JSON string, an object, or nothing) into an
 * arguments object, or says why it cannot: not JSON, not an object, larger or deeper than the
 * limits, holding a forbidden key (`__proto__`, `constructor`, `prototype`) at any depth, a
 * non-finite number, or anything that is not JSON data. The result is always a fresh plain copy
 * (what is digested is what the tool receives). An `approval` key at the top level is dropped:
 * approvals come from the host, never from the model. The one parser every adapter uses; it never
 * throws.
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
  let copied: ReturnType<typeof copyPlain>;
  try {
    copied = copyPlain(value, limits);
  } catch {
    // A getter or a proxy that throws while being read.
    return fail('Arguments must be plain JSON data.');
  }
  if (!copied.ok) return copied;
  delete copied.value['approval'];
  return { ok: true, args: copied.value };
}
