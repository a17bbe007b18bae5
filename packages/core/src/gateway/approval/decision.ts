import { KsadkError } from '../../errors/ksadk-error.js';
import type { Tool } from '../../tool/tool.js';
import type { ApprovalPrincipal, ToolGateway } from '../gateway-types.js';
import type { ApprovalGrant } from './grant.js';
import type { StandingGrantMatch } from './standing-grant.js';

/** "Always" for this session or this user, until a time, for calls that match. */
export interface StandingChoice {
  readonly always?: 'session' | 'user';
  /** Epoch milliseconds. */
  readonly until?: number;
  readonly match?: StandingGrantMatch;
}

/**
 * A host's answer to an approval request — one type for every adapter: approve (with edited
 * arguments: "edit, then approve"), or reject; either may be standing ("always").
 */
export type ApprovalDecision =
  | ({
      type: 'approve';
      reason?: string;
      /** The arguments the human edited the call to: the call runs with exactly these. */
      args?: Record<string, unknown>;
    } & StandingChoice)
  | ({ type: 'reject'; reason?: string } & StandingChoice);

const isPlainObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** The standing part of a decision; `undefined` when it is present but unreadable. */
function standingOf(record: Record<string, unknown>): StandingChoice | undefined {
  const { always, until, match } = record;
  const out: { always?: 'session' | 'user'; until?: number; match?: StandingGrantMatch } = {};
  if (always !== undefined && always !== null && always !== false) {
    if (always !== 'session' && always !== 'user') return undefined;
    out.always = always;
  }
  if (until !== undefined && until !== null) {
    const at = typeof until === 'string' ? Date.parse(until) : until;
    if (typeof at !== 'number' || !Number.isFinite(at)) return undefined;
    out.until = at;
  }
  if (match !== undefined && match !== null) {
    if (!isPlainObject(match)) return undefined;
    out.match = match as StandingGrantMatch;
  }
  return out;
}

/** The edited arguments of an edit decision: `args`, or LangChain's `edited_action.args`. */
function editedArgsOf(record: Record<string, unknown>): Record<string, unknown> | undefined | null {
  const action = record['edited_action'];
  const args = isPlainObject(action) ? action['args'] : record['args'];
  if (args === undefined) return undefined;
  return isPlainObject(args) ? args : null;
}

/** The decision kind a shape names, or `undefined`. */
function kindOf(record: Record<string, unknown>): 'approve' | 'edit' | 'reject' | undefined {
  const named = record['action'] ?? record['type'];
  if (named === 'approve' || named === 'accept' || named === 'edit' || named === 'reject')
    return named === 'accept' ? 'approve' : named;
  if (named !== undefined) return undefined;
  if (record['approved'] === true) return 'approve';
  if (record['approved'] === false) return 'reject';
  return undefined;
}

/**
 * Reads a host decision in any of the shapes the adapters accept — `{ action: 'approve' | 'edit' |
 * 'reject', args?, always?, until?, match?, reason? }`, LangChain's human-in-the-loop
 * `{ decisions: [{ type: 'approve' | 'edit' | 'reject', edited_action?: { name, args }, message? }] }`,
 * `{ type: 'approve' | 'reject', … }`, `{ approved: boolean, … }`, `'approve'` / `'reject'`,
 * `true` / `false`. Only real booleans and these exact words count: the string `"false"` is not
 * an approval. An edit needs an `args` object; `always` is `'session'` or `'user'`; `until` is
 * epoch milliseconds or an ISO date. Anything else — or any of these fields present but malformed
 * — gives `undefined`, which every caller treats as a rejection.
 */
export function parseApprovalDecision(value: unknown): ApprovalDecision | undefined {
  if (value === true || value === 'approve' || value === 'approved') return { type: 'approve' };
  if (value === false || value === 'reject' || value === 'rejected') return { type: 'reject' };
  if (!isPlainObject(value)) return undefined;
  if (Array.isArray(value['decisions'])) {
    return value['decisions'].length === 1
      ? parseApprovalDecision(value['decisions'][0])
      : undefined;
  }
  const kind = kindOf(value);
  const standing = standingOf(value);
  if (!kind || !standing) return undefined;
  const reason = value['reason'] ?? value['message'];
  const because = typeof reason === 'string' ? { reason } : {};
  if (kind === 'reject') return { type: 'reject', ...because, ...standing };
  const args = editedArgsOf(value);
  if (args === null || (kind === 'edit' && args === undefined)) return undefined;
  return { type: 'approve', ...because, ...(args ? { args } : {}), ...standing };
}

const isCode = (error: unknown, ...codes: string[]): boolean =>
  KsadkError.isInstance(error) && codes.includes(error.code);

/**
 * Applies a host decision to a pending request: approves it (with edited arguments, or a standing
 * grant) and returns the grant, or rejects it (the next identical call answers
 * `approval_rejected`) and returns `undefined`. A decision that cannot be read is a rejection
 * ("fail closed"). A standing part the tool does not allow, or that does not fit the account's
 * quota, is dropped: the call itself is still approved once.
 *
 * @throws {KsadkError} `approval_not_found` when the request is unknown, expired or used, or
 * belongs to another account than the principal's (default: the current invocation context's);
 * `invalid_arguments` when edited arguments do not fit the tool (given as `tool`).
 */
export async function decideApproval(
  gateway: ToolGateway,
  approvalId: string,
  decision: unknown,
  options: { principal?: ApprovalPrincipal; tool?: Tool } = {},
): Promise<ApprovalGrant | undefined> {
  const parsed = parseApprovalDecision(decision) ?? {
    type: 'reject' as const,
    reason: 'The host answered with a decision that could not be read.',
  };
  const { type, always, until, match, ...once } = parsed;
  const standing = {
    ...(always !== undefined ? { always } : {}),
    ...(until !== undefined ? { until } : {}),
    ...(match !== undefined ? { match } : {}),
  };
  const base = {
    ...(options.principal ? { principal: options.principal } : {}),
    ...(options.tool ? { tool: options.tool } : {}),
  };
  // A standing part the tool refuses, or the quota cannot hold, leaves a decision on this call alone.
  const dropsStanding = (error: unknown): boolean =>
    always !== undefined && isCode(error, 'standing_grant_not_allowed', 'approval_quota_exceeded');
  if (type === 'approve') {
    try {
      return await gateway.approve(approvalId, { ...base, ...once, ...standing });
    } catch (error) {
      if (!dropsStanding(error)) throw error;
      return gateway.approve(approvalId, { ...base, ...once });
    }
  }
  const reason = { reason: once.reason ?? '' };
  try {
    await gateway.reject(approvalId, { ...base, ...reason, ...standing });
  } catch (error) {
    if (!dropsStanding(error)) throw error;
    await gateway.reject(approvalId, { ...base, ...reason });
  }
  return undefined;
}
