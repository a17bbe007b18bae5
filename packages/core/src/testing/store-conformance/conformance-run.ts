import { isDeepStrictEqual } from 'node:util';

/** What one check can do: record failures and read the clock. */
export interface CheckContext {
  /** Records a failure when `condition` is false. */
  expect(condition: boolean, message: string): void;
  /** Records a failure when `actual` and `expected` are not deeply equal. */
  expectEqual(actual: unknown, expected: unknown, message: string): void;
}

/** One named check: it fails by recording failures or by throwing. */
export interface Check {
  readonly name: string;
  run(context: CheckContext): Promise<void>;
}

const show = (value: unknown): string => {
  let text: string;
  try {
    text = JSON.stringify(value) ?? String(value);
  } catch {
    text = String(value);
  }
  return text.length > 300 ? `${text.slice(0, 300)}…` : text;
};

const describeError = (error: unknown): string =>
  error instanceof Error
    ? `${error.name}${'code' in error ? ` (${String(error.code)})` : ''}: ${error.message}`
    : show(error);

/** Resolves after `ms` milliseconds. */
export const sleep = (ms: number): Promise<void> =>
  new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Runs checks one after another, each bounded by `timeoutMs`, and returns the failures as
 * `"<check>: <what went wrong>"` strings (empty when every check passed). A check that throws or
 * outlives its bound fails; the others still run.
 */
export async function runChecks(checks: readonly Check[], timeoutMs: number): Promise<string[]> {
  const failures: string[] = [];
  for (const check of checks) {
    const context: CheckContext = {
      expect(condition, message) {
        if (!condition) failures.push(`${check.name}: ${message}`);
      },
      expectEqual(actual, expected, message) {
        if (!isDeepStrictEqual(actual, expected))
          failures.push(`${check.name}: ${message} (got ${show(actual)}, want ${show(expected)})`);
      },
    };
    let timer: NodeJS.Timeout | undefined;
    const bound = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () => reject(new Error(`did not finish within ${timeoutMs} ms`)),
        timeoutMs,
      );
    });
    try {
      await Promise.race([check.run(context), bound]);
    } catch (error) {
      failures.push(`${check.name}: ${describeError(error)}`);
    } finally {
      clearTimeout(timer);
    }
  }
  return failures;
}
