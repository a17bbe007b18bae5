import { KsadkError } from '../errors/ksadk-error.js';

/** The E2B sandbox settings read from `KSADK_*` variables. */
export interface SandboxSettings {
  /** `KSADK_SANDBOX_TEMPLATE_ID`, else `KSADK_SKILL_RUNTIME_TEMPLATE_ID`. */
  templateId: string | undefined;
  /** `KSADK_SANDBOX_TIMEOUT`, else `KSADK_SKILL_RUNTIME_TIMEOUT` (seconds), default 900 s. */
  lifetimeMs: number;
  /**
   * `KSADK_SANDBOX_ALLOW_INTERNET_ACCESS`, else `KSADK_SKILL_RUNTIME_ALLOW_INTERNET_ACCESS`;
   * default **false** (Python defaults to true).
   */
  allowInternetAccess: boolean;
  /** `KSADK_SANDBOX_STARTUP_RETRY_ATTEMPTS` (integer; below 1 counts as 1), default 6. */
  startupRetryAttempts: number;
  /** `KSADK_SANDBOX_STARTUP_RETRY_DELAY` (seconds; negative counts as 0), default 0.2 s. */
  startupRetryDelayMs: number;
}

const TRUTHY = new Set(['1', 'true', 'yes', 'on']);

/** The first of `names` set to a non-blank value, trimmed. */
function firstSet(env: NodeJS.ProcessEnv, names: readonly string[]): [string, string] | undefined {
  for (const name of names) {
    const value = env[name]?.trim();
    if (value) return [name, value];
  }
  return undefined;
}

function invalid(name: string, value: string, expected: string): KsadkError {
  return new KsadkError(
    'invalid_config',
    `${name} must be ${expected}, got ${JSON.stringify(value.slice(0, 40))}`,
    { details: { variable: name } },
  );
}

/**
 * A whole number of at least `min` from the first of `names` set (blank counts as unset), else
 * `fallback`.
 *
 * @throws {KsadkError} `invalid_config` naming the variable for anything else.
 */
export function wholeNumberFromEnv(
  env: NodeJS.ProcessEnv,
  names: readonly string[],
  fallback: number,
  min: number,
): number {
  const set = firstSet(env, names);
  if (!set) return fallback;
  const [name, value] = set;
  if (!/^\d+$/.test(value) || Number(value) < min)
    throw invalid(name, value, `a whole number of at least ${min}`);
  return Number(value);
}

/**
 * Reads the E2B sandbox settings from the environment. Blank variables
 * count as unset; booleans are true for `1`, `true`, `yes`, `on` (any case) and false for any
 * other value.
 *
 * @throws {KsadkError} `invalid_config` naming the variable when a number is not valid.
 *
 * @example
 * ```ts
 * const settings = sandboxSettingsFromEnv({ KSADK_SANDBOX_TEMPLATE_ID: 'base', KSADK_SANDBOX_TIMEOUT: '600' });
 * console.log(settings.lifetimeMs); // 600000
 * ```
 */
export function sandboxSettingsFromEnv(env: NodeJS.ProcessEnv = process.env): SandboxSettings {
  const template = firstSet(env, ['KSADK_SANDBOX_TEMPLATE_ID', 'KSADK_SKILL_RUNTIME_TEMPLATE_ID']);
  const lifetimeMs =
    wholeNumberFromEnv(env, ['KSADK_SANDBOX_TIMEOUT', 'KSADK_SKILL_RUNTIME_TIMEOUT'], 900, 1) *
    1000;
  const internet = firstSet(env, [
    'KSADK_SANDBOX_ALLOW_INTERNET_ACCESS',
    'KSADK_SKILL_RUNTIME_ALLOW_INTERNET_ACCESS',
  ]);
  let startupRetryAttempts = 6;
  const attempts = firstSet(env, ['KSADK_SANDBOX_STARTUP_RETRY_ATTEMPTS']);
  if (attempts) {
    if (!/^-?\d+$/.test(attempts[1])) throw invalid(attempts[0], attempts[1], 'a whole number');
    startupRetryAttempts = Math.max(1, Number(attempts[1]));
  }
  let startupRetryDelayMs = 200;
  const delay = firstSet(env, ['KSADK_SANDBOX_STARTUP_RETRY_DELAY']);
  if (delay) {
    if (!/^-?\d+(\.\d+)?$/.test(delay[1])) throw invalid(delay[0], delay[1], 'a number of seconds');
    startupRetryDelayMs = Math.max(0, Number(delay[1]) * 1000);
  }
  return {
    templateId: template?.[1],
    lifetimeMs,
    allowInternetAccess: internet ? TRUTHY.has(internet[1].toLowerCase()) : false,
    startupRetryAttempts,
    startupRetryDelayMs,
  };
}
