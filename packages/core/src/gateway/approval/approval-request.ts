import { budgetToolOutput, type ResultBudget } from '../../budget/result-budget.js';
import type { ApprovalInboxItem, ApprovalRequest, ModelApprovalRequest } from '../results.js';
import type { CallBinding } from './approval-record.js';
import { deadlineOf, listStatusOf } from './record-filters.js';
import type { ApprovalRecord } from './store.js';

/** The request of a record, as the host sees it. */
export function requestOf(record: ApprovalRecord): ApprovalRequest {
  return {
    id: record.id,
    tool_name: record.toolName,
    risk_level: record.riskLevel,
    side_effects: [...record.sideEffects],
    arguments: structuredClone(record.arguments) as Record<string, unknown>,
    args_digest: record.argsDigest,
    expires_at: new Date(deadlineOf(record)).toISOString(),
    ...(record.why ? { why: record.why } : {}),
    ...(record.summary ? { summary: record.summary } : {}),
  };
}

const iso = (at: number): string => new Date(at).toISOString();

/** The record as the inbox lists it, at `now`. */
export function inboxItemOf(record: ApprovalRecord, now: number): ApprovalInboxItem {
  return {
    ...requestOf(record),
    status: listStatusOf(record, now),
    account_id: record.accountId,
    user_id: record.userId,
    session_id: record.sessionId,
    ...(record.callId !== undefined ? { tool_call_id: record.callId } : {}),
    created_at: iso(record.createdAt),
    ...(record.decidedAt !== undefined ? { decided_at: iso(record.decidedAt) } : {}),
    ...(record.decidedBy !== undefined ? { decided_by: record.decidedBy } : {}),
    ...(record.reason ? { reason: record.reason } : {}),
    ...(record.edited
      ? { edited_arguments: structuredClone(record.edited.arguments) as Record<string, unknown> }
      : {}),
  };
}

/** The request as the model sees it: large arguments become a preview and a persisted copy. */
export async function requestForModel(
  record: ApprovalRecord,
  binding: CallBinding,
  callId: string,
  budget: ResultBudget,
): Promise<ModelApprovalRequest> {
  const { json } = binding;
  const { arguments: args, ...rest } = requestOf(record);
  const limit = Math.min(budget.maxChars, budget.persistThresholdChars);
  if (json.length <= limit) return { ...rest, arguments: args };
  const budgeted = await budgetToolOutput(binding.tool.name, 'arguments', json, {
    budget,
    metadata: { toolCallId: callId },
    context: binding.context,
  });
  return {
    ...rest,
    arguments_preview: budgeted.value,
    arguments_truncated: true,
    arguments_original_chars: json.length,
    ...(budgeted.persisted ? { persisted_outputs: { arguments: budgeted.persisted } } : {}),
  };
}
