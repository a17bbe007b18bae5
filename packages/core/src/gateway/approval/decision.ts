import type { ApprovalPrincipal, ToolGateway } from '../gateway-types.js';
import type { ApprovalGrant } from './grant.js';

/** A host's answer to an approval request. */
export type ApprovalDecision =
  | { type: 'approve'; reason?: string }
  | { type: 'reject'; reason?: string };

/**
 * Reads a host decision in any of the shapes the adapters accept — `{ decisions: [{ type }] }`
 * (LangChain's human-in-the-loop shape), `{ type: 'approve' | 'reject', message?, reason? }`,
 * `{ approved: boolean, reason? }`, `'approve'` / `'reject'`, `true` / `false`. Only real
 * booleans and these exact words count: the string `"false"` is not an approval. Anything else
 * gives `undefined`.
 */
export function parseApprovalDecision(value: unknown): ApprovalDecision | undefined {
  if (value === true || value === 'approve' || value === 'approved') return { type: 'approve' };
  if (value === false || value === 'reject' || value === 'rejected') return { type: 'reject' };
  if (typeof value !== 'object' || value === null) return undefined;
  const record = value as Record<string, unknown>;
  if (Array.isArray(record['decisions'])) {
    return record['decisions'].length === 1
      ? parseApprovalDecision(record['decisions'][0])
      : undefined;
  }
  const reasonOf = (): { reason?: string } => {
    const reason = record['reason'] ?? record['message'];
    return typeof reason === 'string' ? { reason } : {};
  };
  if (record['type'] === 'approve' || record['approved'] === true)
    return { type: 'approve', ...reasonOf() };
  if (record['type'] === 'reject' || record['approved'] === false)
    return { type: 'reject', ...reasonOf() };
  return undefined;
}

/**
 * Applies a host decision to a pending request: approves it and returns the grant, or rejects
 * it (the next identical call answers `approval_rejected`) and returns `undefined`. A decision
 * that cannot be read is a rejection ("fail closed").
 *
 * @throws {KsadkError} `approval_not_found` when the request is unknown, expired or used, or
 * belongs to another account than the principal's (default: the current invocation context's).
 */
export async function decideApproval(
  gateway: ToolGateway,
  approvalId: string,
  decision: unknown,
  options: { principal?: ApprovalPrincipal } = {},
): Promise<ApprovalGrant | undefined> {
  const parsed = parseApprovalDecision(decision);
  const principal = options.principal ? { principal: options.principal } : {};
  if (parsed?.type === 'approve')
    return gateway.approve(approvalId, {
      ...principal,
      ...(parsed.reason === undefined ? {} : { reason: parsed.reason }),
    });
  await gateway.reject(approvalId, {
    ...principal,
    reason: parsed
      ? (parsed.reason ?? '')
      : 'The host answered with a decision that could not be read.',
  });
  return undefined;
}
