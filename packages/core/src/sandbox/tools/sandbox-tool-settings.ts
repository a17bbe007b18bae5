import { wholeNumberFromEnv } from '../../util/env.js';
import { sandboxSettingsFromEnv } from '../sandbox-settings.js';
import { DEFAULT_SYNC_LIMITS, type WorkspaceSyncLimits } from './workspace-sync.js';

/** What the sandbox tools read from `KSADK_SANDBOX_*` variables (every one overridable in code). */
export interface SandboxToolSettings {
  /** `KSADK_SANDBOX_COMMAND_TIMEOUT` (seconds): a command's limit when the model gives none. @default 120 s */
  commandTimeoutMs: number;
  /** `KSADK_SANDBOX_MAX_COMMAND_TIMEOUT` (seconds): the cap on any model-given limit. @default 900 s */
  maxCommandTimeoutMs: number;
  /** `KSADK_SANDBOX_START_TIMEOUT` (seconds): a sandbox's start-up and workspace copy. @default 180 s */
  startTimeoutMs: number;
  /** `KSADK_SANDBOX_TTL_SECONDS`, else `KSADK_SANDBOX_TIMEOUT`: a session's hard lifetime. @default 600 s */
  ttlMs: number;
  /** `KSADK_SANDBOX_IDLE_TTL_SECONDS` (`0` = off). @default 300 s */
  idleTtlMs: number;
  /** `KSADK_SANDBOX_MAX_SESSIONS` (`0` = no limit). @default 32 */
  maxSessions: number;
  /** `KSADK_SANDBOX_SWEEP_INTERVAL_SECONDS` (`0` = sweep only on use). @default 60 s */
  sweepIntervalMs: number;
  /** `KSADK_SANDBOX_SYNC_MAX_FILES`, `…_MAX_FILE_BYTES`, `…_MAX_TOTAL_BYTES`. */
  sync: WorkspaceSyncLimits;
  /** `KSADK_SANDBOX_SESSION_ID`: one sandbox per account for every session (never across accounts). */
  pinnedSessionId: string | undefined;
  /** `KSADK_SANDBOX_ALLOW_INTERNET_ACCESS`. @default false */
  network: boolean;
  /** The E2B template (`KSADK_SANDBOX_TEMPLATE_ID`, `KSADK_SKILL_RUNTIME_TEMPLATE_ID`). */
  templateId: string | undefined;
  /** The E2B sandbox lifetime in seconds (`KSADK_SANDBOX_TIMEOUT`). @default 900 */
  lifetimeSeconds: number;
}

/**
 * Reads the sandbox tools' settings. Blank variables count as unset.
 *
 * @throws {KsadkError} `invalid_config` naming the variable when a value is not a valid number.
 */
export function sandboxToolSettingsFromEnv(
  env: NodeJS.ProcessEnv = process.env,
): SandboxToolSettings {
  const backend = sandboxSettingsFromEnv(env);
  const maxCommand = wholeNumberFromEnv(env, ['KSADK_SANDBOX_MAX_COMMAND_TIMEOUT'], 900, 1);
  return {
    commandTimeoutMs:
      Math.min(wholeNumberFromEnv(env, ['KSADK_SANDBOX_COMMAND_TIMEOUT'], 120, 1), maxCommand) *
      1000,
    maxCommandTimeoutMs: maxCommand * 1000,
    startTimeoutMs: wholeNumberFromEnv(env, ['KSADK_SANDBOX_START_TIMEOUT'], 180, 1) * 1000,
    ttlMs:
      wholeNumberFromEnv(env, ['KSADK_SANDBOX_TTL_SECONDS', 'KSADK_SANDBOX_TIMEOUT'], 600, 1) *
      1000,
    idleTtlMs: wholeNumberFromEnv(env, ['KSADK_SANDBOX_IDLE_TTL_SECONDS'], 300, 0) * 1000,
    maxSessions: wholeNumberFromEnv(env, ['KSADK_SANDBOX_MAX_SESSIONS'], 32, 0),
    sweepIntervalMs:
      wholeNumberFromEnv(env, ['KSADK_SANDBOX_SWEEP_INTERVAL_SECONDS'], 60, 0) * 1000,
    sync: {
      maxFiles: wholeNumberFromEnv(
        env,
        ['KSADK_SANDBOX_SYNC_MAX_FILES'],
        DEFAULT_SYNC_LIMITS.maxFiles,
        0,
      ),
      maxFileBytes: wholeNumberFromEnv(
        env,
        ['KSADK_SANDBOX_SYNC_MAX_FILE_BYTES'],
        DEFAULT_SYNC_LIMITS.maxFileBytes,
        0,
      ),
      maxTotalBytes: wholeNumberFromEnv(
        env,
        ['KSADK_SANDBOX_SYNC_MAX_TOTAL_BYTES'],
        DEFAULT_SYNC_LIMITS.maxTotalBytes,
        0,
      ),
    },
    pinnedSessionId: env['KSADK_SANDBOX_SESSION_ID']?.trim() || undefined,
    network: backend.allowInternetAccess,
    templateId: backend.templateId,
    lifetimeSeconds: Math.round(backend.lifetimeMs / 1000),
  };
}
