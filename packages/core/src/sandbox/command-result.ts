import { redactSecrets } from '../util/redact.js';
import { invalidEnvReason } from './child-env.js';
import type { SandboxErrorType } from './error-types.js';
import type { SandboxCommand, SandboxCommandResult } from './sandbox-backend.js';

/** A command's time limit at most, by default: 15 minutes. */
export const DEFAULT_MAX_TIMEOUT_MS = 900_000;
/** The longest delay a Node timer can hold. */
const TIMER_LIMIT_MS = 2_147_483_647;

/** A backend's `maxTimeoutMs` option: positive and finite, else the 15-minute default. */
export function clampMaxTimeout(value: number | undefined): number {
  if (value === undefined || !Number.isFinite(value) || value <= 0) return DEFAULT_MAX_TIMEOUT_MS;
  return Math.min(Math.ceil(value), TIMER_LIMIT_MS);
}

/** A command's time limit: its `timeoutMs` capped by the backend's; invalid → the cap. */
export function clampTimeout(value: number, maxTimeoutMs: number): number {
  if (!Number.isFinite(value) || value <= 0) return maxTimeoutMs;
  return Math.min(Math.ceil(value), maxTimeoutMs);
}

/** The fields a backend fills in; text is redacted by {@link commandResult}. */
export interface CommandOutcome {
  exit_code: number | null;
  stdout?: string;
  stderr?: string;
  duration_ms: number;
  timed_out?: boolean;
  error_type?: string | null;
  error_message?: string | null;
  output_truncated?: boolean;
}

/**
 * A {@link SandboxCommandResult}: `ok` derived, every text field redacted of registered secrets
 * and of `secrets` (values the backend knows are secret).
 */
export function commandResult(
  outcome: CommandOutcome,
  secrets: readonly string[] = [],
): SandboxCommandResult {
  const timedOut = outcome.timed_out ?? false;
  const errorType = outcome.error_type ?? null;
  const message = outcome.error_message ?? null;
  return {
    ok: outcome.exit_code === 0 && !timedOut && errorType === null,
    exit_code: outcome.exit_code,
    stdout: redactSecrets(outcome.stdout ?? '', secrets),
    stderr: redactSecrets(outcome.stderr ?? '', secrets),
    duration_ms: Math.max(0, Math.round(outcome.duration_ms)),
    timed_out: timedOut,
    error_type: errorType,
    error_message: message === null ? null : redactSecrets(message, secrets),
    output_truncated: outcome.output_truncated ?? false,
  };
}

/** A command that did not run (or did not get far): no exit code, no output. */
export function failedCommand(
  errorType: SandboxErrorType,
  message: string,
  started: number,
  secrets: readonly string[] = [],
): SandboxCommandResult {
  return commandResult(
    {
      exit_code: null,
      duration_ms: performance.now() - started,
      error_type: errorType,
      error_message: message,
    },
    secrets,
  );
}

/**
 * Checks a command's shape (argv a non-empty array of strings, the program name not empty).
 * Returns the reason it is invalid, or `undefined`.
 */
function invalidCommandReason(command: SandboxCommand | undefined): string | undefined {
  const argv = (command as { argv?: unknown } | undefined)?.argv;
  if (!Array.isArray(argv) || argv.length === 0) return 'argv must be a non-empty array';
  if (argv.some((arg) => typeof arg !== 'string')) return 'every argv entry must be a string';
  if (argv[0] === '') return 'the program name (argv[0]) must not be empty';
  if (argv.some((arg) => (arg as string).includes('\0'))) return 'argv must not hold a NUL byte';
  return undefined;
}

/**
 * The checks every backend makes before a command starts, in order: the session is open, the
 * command is well formed, its environment is valid, it is not aborted already. Returns the
 * failed result, or `undefined` when the command may run.
 */
export function refusedCommand(
  command: SandboxCommand,
  closed: boolean,
  started: number,
): SandboxCommandResult | undefined {
  if (closed) return failedCommand('session_closed', 'the sandbox session was killed', started);
  const invalid = invalidCommandReason(command);
  if (invalid) return failedCommand('invalid_command', invalid, started);
  const envProblem = invalidEnvReason(command.env);
  if (envProblem) return failedCommand('invalid_env', envProblem, started);
  if (command.signal?.aborted)
    return failedCommand('tool_aborted', 'the command was aborted before it started', started);
  return undefined;
}
