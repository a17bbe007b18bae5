import { firstSetVariable, flagFromEnv, invalidVariable, wholeNumberFromEnv } from '../util/env.js';

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

/**
 * Reads the E2B sandbox settings from the environment. Blank variables
 * count as unset; flags are true for `1`, `true`, `yes`, `on` and false for `0`, `false`,
 * `no`, `off` (any case).
 *
 * @throws {KsadkError} `invalid_config` naming the variable when a number or a flag is not valid.
 *
 * @example
 * ```ts
 * const settings = sandboxSettingsFromEnv({ KSADK_SANDBOX_TEMPLATE_ID: 'base', KSADK_SANDBOX_TIMEOUT: '600' });
 * console.log(settings.lifetimeMs); // 600000
 * ```
 */
export function sandboxSettingsFromEnv(env: NodeJS.ProcessEnv = process.env): SandboxSettings {
  const template = firstSetVariable(env, [
    'KSADK_SANDBOX_TEMPLATE_ID',
    'KSADK_SKILL_RUNTIME_TEMPLATE_ID',
  ]);
  const lifetimeMs =
    wholeNumberFromEnv(env, ['KSADK_SANDBOX_TIMEOUT', 'KSADK_SKILL_RUNTIME_TIMEOUT'], 900, 1) *
    1000;
  const allowInternetAccess = flagFromEnv(env, [
    'KSADK_SANDBOX_ALLOW_INTERNET_ACCESS',
    'KSADK_SKILL_RUNTIME_ALLOW_INTERNET_ACCESS',
  ]);
  let startupRetryAttempts = 6;
  const attempts = firstSetVariable(env, ['KSADK_SANDBOX_STARTUP_RETRY_ATTEMPTS']);
  if (attempts) {
    if (!/^-?\d+$/.test(attempts[1]))
      throw invalidVariable(attempts[0], attempts[1], 'a whole number');
    startupRetryAttempts = Math.max(1, Number(attempts[1]));
  }
  let startupRetryDelayMs = 200;
  const delay = firstSetVariable(env, ['KSADK_SANDBOX_STARTUP_RETRY_DELAY']);
  if (delay) {
    if (!/^-?\d+(\.\d+)?$/.test(delay[1]))
      throw invalidVariable(delay[0], delay[1], 'a number of seconds');
    startupRetryDelayMs = Math.max(0, Number(delay[1]) * 1000);
  }
  return {
    templateId: template?.[1],
    lifetimeMs,
    allowInternetAccess,
    startupRetryAttempts,
    startupRetryDelayMs,
  };
}
