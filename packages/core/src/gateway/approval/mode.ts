import { KsadkError } from '../../errors/ksadk-error.js';

/** `ask`: ask for anything with approval scopes or medium+ risk; `risk`: ask for medium+ risk; `full`: ask only for tools marked `requiresApproval: true`. */
export type ApprovalMode = 'ask' | 'risk' | 'full';

/** The canonical approval modes. */
export const APPROVAL_MODES: readonly ApprovalMode[] = ['ask', 'risk', 'full'];

const ALIASES: Readonly<Record<string, ApprovalMode>> = { strict: 'risk', off: 'full' };

/** The environment variable holding the process-wide default approval mode. */
export const APPROVAL_MODE_ENV = 'KSADK_TOOL_APPROVAL_MODE';

/**
 * Parses an approval mode (trimmed, case-insensitive; `strict` → `risk`, `off` → `full`).
 *
 * @param source names where the value came from, for the error message.
 * @throws {KsadkError} `invalid_config` naming `source` and the allowed values.
 */
export function parseApprovalMode(value: string, source: string): ApprovalMode {
  const normalized = value.trim().toLowerCase();
  if ((APPROVAL_MODES as readonly string[]).includes(normalized)) return normalized as ApprovalMode;
  const alias = ALIASES[normalized];
  if (alias) return alias;
  throw new KsadkError(
    'invalid_config',
    `${source} must be one of ask, risk, full (aliases: strict → risk, off → full); got "${value}".`,
    { details: { source, allowed: [...APPROVAL_MODES, ...Object.keys(ALIASES)] } },
  );
}

/**
 * The process default mode: `KSADK_TOOL_APPROVAL_MODE` when set and non-empty, else `risk`.
 *
 * @throws {KsadkError} `invalid_config` when the variable holds an unknown mode.
 */
export function approvalModeFromEnv(env: NodeJS.ProcessEnv = process.env): ApprovalMode {
  const raw = env[APPROVAL_MODE_ENV];
  if (raw === undefined || raw.trim() === '') return 'risk';
  return parseApprovalMode(raw, APPROVAL_MODE_ENV);
}
