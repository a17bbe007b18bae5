import { KsadkError } from './ksadk-error.js';

/** Edit distance, for "did you mean". */
function distance(a: string, b: string): number {
  const row = Array.from({ length: b.length + 1 }, (_, index) => index);
  for (let i = 1; i <= a.length; i += 1) {
    let previous = row[0]!;
    row[0] = i;
    for (let j = 1; j <= b.length; j += 1) {
      const current = row[j]!;
      row[j] = Math.min(row[j]! + 1, row[j - 1]! + 1, previous + (a[i - 1] === b[j - 1] ? 0 : 1));
      previous = current;
    }
  }
  return row[b.length]!;
}

/** Whether every character of `short` appears in `long`, in order (`onEnd` in `onToolEnd`). */
function isSubsequence(short: string, long: string): boolean {
  let at = 0;
  for (const char of long) if (char === short[at]) at += 1;
  return short.length >= 3 && at === short.length;
}

/** The allowed key closest to `key`, when it is close enough to be a slip. */
function closest(key: string, allowed: readonly string[]): string | undefined {
  const lower = key.toLowerCase();
  let best: { name: string; score: number } | undefined;
  for (const name of allowed) {
    const candidate = name.toLowerCase();
    const score =
      candidate.includes(lower) || lower.includes(candidate)
        ? 1
        : isSubsequence(lower, candidate)
          ? 2
          : distance(lower, candidate);
    if (score <= Math.max(2, Math.floor(name.length / 3)) && (!best || score < best.score))
      best = { name, score };
  }
  return best?.name;
}

/**
 * Every key of an options type, each `true` — `{ gateway: true, onProgress: true }` for
 * `{ gateway?: ToolGateway; onProgress?: … }`. The compiler holds such a list equal to the type:
 * a key left out or one the type does not have does not compile, so the keys a factory accepts
 * cannot drift from its options type.
 */
export type OptionKeys<T> = { readonly [K in keyof T]-?: true };

/**
 * Refuses an options object with a key the factory does not know — in the unsafe direction an
 * ignored key is a silent default (`createToolGateway({ mode: 'ask' })` would run in whatever mode
 * the environment says). Names the key and, when one is close, the intended one. `allowed` is
 * every key of the options type ({@link OptionKeys}).
 *
 * @throws {KsadkError} `invalid_config`.
 *
 * @example
 * ```ts
 * interface GreeterOptions {
 *   name?: string;
 *   loud?: boolean;
 * }
 * function createGreeter(options: GreeterOptions = {}) {
 *   checkOptions(options, { name: true, loud: true }, 'createGreeter()');
 * }
 * ```
 */
export function checkOptions<T extends object>(
  options: T | undefined | null,
  keys: NoInfer<OptionKeys<T>>,
  where: string,
  code: 'invalid_config' | 'invalid_tool' = 'invalid_config',
): void {
  const allowed = Object.keys(keys);
  if (options === undefined || options === null) return;
  for (const key of Object.keys(options)) {
    if (allowed.includes(key)) continue;
    const hint = closest(key, allowed);
    throw new KsadkError(
      code,
      `${where} has no option "${key.slice(0, 60)}"${hint ? ` — did you mean "${hint}"?` : ''}. Options: ${allowed.join(', ')}.`,
      { details: { option: key.slice(0, 60), ...(hint ? { suggestion: hint } : {}) } },
    );
  }
}
