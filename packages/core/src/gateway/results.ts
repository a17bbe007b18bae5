import type { PersistedOutput } from '../budget/result-budget.js';
import { CredentialRequiredSignal } from '../credentials/credential-required.js';
import { KsadkError } from '../errors/ksadk-error.js';
import type { RiskLevel } from '../tool/policy.js';
import { modelSafeErrorMessage } from '../util/sanitize-message.js';
import type { ApprovalListStatus } from './approval/store-queries.js';
import {
  type ErrorTypeTable,
  GATEWAY_ERROR_TYPES,
  type GatewayErrorType,
  type RetryHint,
} from './tool-error-types.js';

/** Every tool result is a JSON object with `ok`. */
export type ToolResult = { ok: boolean } & Record<string, unknown>;

/** A failure the model can read: a stable `error_type` and a short message. */
export interface ToolErrorResult {
  ok: false;
  /** One of KsADK's error types (`TOOL_ERROR_TYPES`), or a tool's own. */
  error_type: string;
  error_message: string;
  [key: string]: unknown;
}

/** One argument problem reported by `invalid_arguments`. */
export interface ArgumentIssue {
  /** Dotted path of the offending field (`""` for the root). */
  path: string;
  message: string;
}

/** What a human is asked to decide, with the full arguments: what the host shows. */
export interface ApprovalRequest {
  /** `appr_` + 32 hex characters. */
  id: string;
  tool_name: string;
  risk_level: RiskLevel;
  side_effects: string[];
  /** The validated arguments the call would run with. */
  arguments: Record<string, unknown>;
  /** SHA-256 (hex) of the canonical JSON of `arguments`. */
  args_digest: string;
  /** ISO 8601: the deadline for a decision. */
  expires_at: string;
  /** Why the call needs a decision, in words (the policy's answer). */
  why?: string;
  /** The tool's one-line summary of the call, when it gives one. */
  summary?: string;
}

/**
 * An approval request as the inbox lists it, for the host: the request, whose call it is, and
 * where it stands.
 */
export interface ApprovalInboxItem extends ApprovalRequest {
  status: ApprovalListStatus;
  account_id: string;
  /** `''` when the call carried no user. */
  user_id: string;
  session_id: string;
  /** The framework's tool call id, when it gave one. */
  tool_call_id?: string;
  /** ISO 8601. */
  created_at: string;
  /** ISO 8601, once decided. */
  decided_at?: string;
  /** Who decided (`account:<id>`, `user:<id>`, `admin`, `expiry`). */
  decided_by?: string;
  /** The decision's reason, if given. */
  reason?: string;
  /** The arguments the human edited the call to, while the grant is unused. */
  edited_arguments?: Record<string, unknown>;
}

/**
 * The approval request as the model sees it inside `approval_required`: the full request when
 * its arguments are small; otherwise `arguments` is replaced by a preview of their JSON, with the
 * full copy persisted and the digest still binding the exact arguments.
 */
export interface ModelApprovalRequest extends Omit<ApprovalRequest, 'arguments'> {
  /** The validated arguments, when they fit the result budget. */
  arguments?: Record<string, unknown>;
  /** A prefix of the arguments' JSON, when they do not fit. */
  arguments_preview?: string;
  arguments_truncated?: true;
  arguments_original_chars?: number;
  persisted_outputs?: { arguments: PersistedOutput };
}

/** The call needs a host decision; nothing ran. */
export interface ApprovalRequiredResult {
  ok: false;
  type: 'approval_required';
  approval_required: true;
  error_type: 'approval_required';
  error_message: string;
  approval_request: ModelApprovalRequest;
}

/** Nobody decided before the request's deadline; it was rejected by its expiry rule. Nothing ran. */
export interface ApprovalExpiredResult {
  ok: false;
  type: 'approval_expired';
  approval_required: false;
  error_type: 'approval_expired';
  error_message: string;
  tool_name: string;
  risk_level: RiskLevel;
}

/** The host refused the call; nothing ran. */
export interface ApprovalRejectedResult {
  ok: false;
  type: 'approval_rejected';
  approval_required: false;
  error_type: 'approval_rejected';
  error_message: string;
  tool_name: string;
  risk_level: RiskLevel;
  reason: string;
}

/** A replayed call (same tool call id) whose approval was already decided and handled: it is not run again. */
export interface ApprovalUsedResult {
  ok: false;
  approval_required: false;
  error_type: 'approval_already_used';
  error_message: string;
  tool_name: string;
}

/** True when `value` is an `approval_required` envelope. */
export function isApprovalRequired(value: unknown): value is ApprovalRequiredResult {
  return (
    typeof value === 'object' &&
    value !== null &&
    (value as { type?: unknown }).type === 'approval_required' &&
    typeof (value as { approval_request?: unknown }).approval_request === 'object'
  );
}

/** True when `value` is an `approval_rejected` envelope. */
export function isApprovalRejected(value: unknown): value is ApprovalRejectedResult {
  return (
    typeof value === 'object' &&
    value !== null &&
    (value as { type?: unknown }).type === 'approval_rejected'
  );
}

/**
 * The failure constructor for `table`: `(errorType, message, extra?)` builds
 * `{ ok: false, error_type, error_message, ...extra }`, and `errorType` must be one of the
 * table's keys or the gateway's. Each capability makes its own from its table; the table itself
 * is what the docs and `TOOL_ERROR_TYPES` list. The table is only read for its type: pass it, or
 * give its type alone (`failureFor<typeof TABLE>()`), so code that builds failures does not load
 * the table (KsADK's capabilities do the latter, in their `failure.ts`).
 *
 * @example
 * ```ts
 * const NOTE_ERROR_TYPES = { note_not_found: 'fix' } as const satisfies ErrorTypeTable;
 * const noteFailure = failureFor(NOTE_ERROR_TYPES);
 * const missing = noteFailure('note_not_found', 'No note is called "todo".', { title: 'todo' });
 * ```
 */
export function failureFor<const Table extends ErrorTypeTable = Record<never, RetryHint>>(
  _table?: Table,
): <
  const Type extends (keyof Table & string) | GatewayErrorType,
  Extra extends object = Record<never, never>,
>(
  errorType: Type,
  message: string,
  extra?: Extra,
) => ToolErrorResult & { error_type: Type } & Extra {
  return (errorType, message, extra) =>
    ({ ok: false, error_type: errorType, error_message: message, ...extra }) as never;
}

/**
 * The gateway's own failures (and those of the layers below the capabilities), for adapters that
 * answer a call themselves (an unknown tool, too many calls at once): `{ ok: false, error_type, error_message }`.
 *
 * @example
 * ```ts
 * const result = gatewayFailure('unknown_tool', 'There is no tool named lookup.');
 * ```
 */
export const gatewayFailure = failureFor(GATEWAY_ERROR_TYPES);

/** The result for a call that was cancelled. */
/**
 * A call of a tool with side effects that was cancelled after it started: it may or may not have
 * taken effect, so it is not to be repeated blindly.
 */
export function outcomeUnknownResult(tool: { readonly name: string }): ToolErrorResult {
  return gatewayFailure(
    'outcome_unknown',
    `${tool.name} was cancelled after it started. ${UNKNOWN_NOTE}`,
    { outcome: 'unknown' },
  );
}

/** What the model is told of a call that may or may not have taken effect. */
const UNKNOWN_NOTE =
  'It may or may not have taken effect: do not repeat it without checking what it did.';

/**
 * A timeout of a tool with side effects (whoever timed out: the gateway, a command, a server), or
 * a failure the tool itself marks `outcome: 'unknown'` (an MCP server that stopped mid-call), as
 * `outcome_unknown`: the call may have done its work before it was stopped. Other results as is.
 */
export function accountedTimeout(result: ToolResult, mayHaveRun: boolean): ToolResult {
  const { error_type: type, outcome } = result as { error_type?: unknown; outcome?: unknown };
  if (!mayHaveRun || result.ok !== false || (type !== 'tool_timeout' && outcome !== 'unknown'))
    return result;
  if (type === 'outcome_unknown') return result;
  const { retryable: _, ...rest } = result as ToolResult & { retryable?: unknown };
  return {
    ...rest,
    error_type: 'outcome_unknown',
    error_message:
      `${String((result as { error_message?: unknown }).error_message ?? '')} ${UNKNOWN_NOTE}`.trim(),
    outcome: 'unknown',
  } as ToolResult;
}

export function abortedResult(tool: { readonly name: string }): ToolErrorResult {
  return gatewayFailure('tool_aborted', `The call to ${tool.name} was cancelled.`);
}

/**
 * The result for anything a tool — or an adapter's own step around it — threw: a stable
 * `error_type` (a `KsadkError`'s code, else `tool_error`) and a model-safe message. Adapters use
 * it so one call's failure becomes that call's result, never the batch's.
 *
 * @example
 * ```ts
 * try { result = await step(); } catch (error) { result = failedResult(error); }
 * ```
 */
export function failedResult(error: unknown): ToolErrorResult {
  // A tool stopped by `context.credential(id)`: the pause it carries is the call's answer.
  if (CredentialRequiredSignal.isInstance(error)) return error.result as unknown as ToolErrorResult;
  return gatewayFailure(
    KsadkError.isInstance(error) ? error.code : 'tool_error',
    modelSafeErrorMessage(error),
  );
}
