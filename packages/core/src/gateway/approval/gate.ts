import type { ResultBudget } from '../../budget/result-budget.js';
import type { InvocationContext } from '../../context/invocation-context.js';
import { KsadkError } from '../../errors/ksadk-error.js';
import type { Tool } from '../../tool/tool.js';
import { echoValue } from '../../util/sanitize-message.js';
import type { ApprovalDecisionOptions, ApprovalPrincipal } from '../gateway-types.js';
import type {
  ApprovalRejectedResult,
  ApprovalRequest,
  ApprovalRequiredResult,
  ApprovalUsedResult,
} from '../results.js';
import { gatewayFailure } from '../results.js';
import { APPROVAL_ID, idForMessage, owns, principalOf } from './approval-owner.js';
import { bindingKeyOf, bindingOf, type CallBinding, newApprovalRecord } from './approval-record.js';
import { requestForModel, requestOf } from './approval-request.js';
import { type ApprovalGrant, type ApprovalKeys, signGrant, verifyGrant } from './grant.js';
import type { ApprovalRecord, ApprovalStore } from './store.js';

/** What the gate needs from the gateway. */
export interface ApprovalGateOptions {
  readonly store: ApprovalStore;
  readonly keys: ApprovalKeys;
  readonly ttlMs: number;
  readonly budget: ResultBudget;
  /** Called with each newly stored request. */
  readonly onRequested?: (request: ApprovalRequest, context: InvocationContext) => void;
}

/** One call presented to the gate. */
export interface GatedCall {
  readonly tool: Tool;
  readonly args: Record<string, unknown>;
  readonly context: InvocationContext;
  readonly callId: string;
  /**
   * Whether `callId` is the framework's own tool call id (given by the caller, not generated). It
   * then joins the binding: a replay of the same call (a resumed checkpoint, a saved pause resumed
   * twice) finds the first one's record and is not run again.
   */
  readonly callIdGiven: boolean;
  /**
   * Whether a continuation grant (the call stopped to ask the human and is resumed) is used at once
   * (`run`), or presented again as an approval request the adapter answers by replaying the
   * human's decision (`ask`: LangGraph, whose resume values are matched to `interrupt()` calls by order).
   */
  readonly continuation: 'run' | 'ask';
  readonly approval: ApprovalGrant | string | undefined;
}

/** A call whose grant was presented (or continued) and consumed: it may run. */
export interface GrantedCall {
  readonly granted: true;
  /** The approval the call consumed. */
  readonly approvalId: string;
  /** When that approval expires (epoch ms). */
  readonly expiresAt: number;
}

/** The approval half of the gateway: requests, decisions and single-use grants. */
export interface ApprovalGate {
  /** `'granted'` when a valid grant for exactly this call was presented and consumed; otherwise the envelope to return. */
  check(
    call: GatedCall,
  ): Promise<GrantedCall | ApprovalRequiredResult | ApprovalRejectedResult | ApprovalUsedResult>;
  /**
   * After a granted call stopped to ask the human (`input_required`): re-issues its grant for the
   * same call, so resuming it with the answer runs it without a second approval.
   */
  continueAfterInput(call: GatedCall, granted: GrantedCall): Promise<void>;
  approve(approvalId: string, options?: ApprovalDecisionOptions): Promise<ApprovalGrant>;
  reject(approvalId: string, options?: ApprovalDecisionOptions): Promise<void>;
  getRequest(
    approvalId: string,
    principal?: ApprovalPrincipal,
  ): Promise<ApprovalRequest | undefined>;
}
/** The answer to a replayed call whose approval was already decided and handled. */
function alreadyHandled(tool: Tool, callId: string): ApprovalUsedResult {
  return gatewayFailure(
    'approval_already_used',
    `This call to ${tool.name} (tool call ${echoValue(callId, 80)}) was already decided and handled once; a replayed call is not run again.`,
    { approval_required: false as const, tool_name: tool.name },
  );
}

function grantOf(record: ApprovalRecord, keys: ApprovalKeys): ApprovalGrant {
  return {
    approvalId: record.id,
    toolName: record.toolName,
    expiresAt: new Date(record.expiresAt).toISOString(),
    token: signGrant(
      {
        id: record.id,
        tool: record.toolName,
        digest: record.argsDigest,
        account: record.accountId,
        session: record.sessionId,
        exp: record.expiresAt,
      },
      keys.sign,
    ),
  };
}

/** The presented grant, consumed, when it is valid for exactly this call and unexpired. */
async function presentedGrant(
  approval: ApprovalGrant | string,
  binding: CallBinding,
  options: ApprovalGateOptions,
  now: number,
): Promise<GrantedCall | undefined> {
  const token = typeof approval === 'string' ? approval : approval?.token;
  const payload = verifyGrant(token, options.keys.verify);
  if (
    payload &&
    payload.tool === binding.tool.name &&
    payload.digest === binding.digest &&
    payload.account === binding.account &&
    payload.session === binding.session &&
    payload.exp > now &&
    (await options.store.transition(payload.id, 'approved', 'consumed'))
  ) {
    return { granted: true, approvalId: payload.id, expiresAt: payload.exp };
  }
  return undefined;
}

function rejectedResult(tool: Tool, reason: string): ApprovalRejectedResult {
  return gatewayFailure(
    'approval_rejected',
    `The user rejected this call to ${tool.name}${reason ? `: ${reason}` : '.'} Do not retry it unchanged.`,
    {
      type: 'approval_rejected' as const,
      approval_required: false as const,
      tool_name: tool.name,
      risk_level: tool.policy.riskLevel,
      reason,
    },
  );
}

/**
 * The open record of the call's binding, once the ones that answer the call by themselves are
 * handled: a continued grant is consumed, a tombstone answers a replay, a rejection is reported once.
 */
async function openRecord(
  call: GatedCall,
  bindingKey: string,
  store: ApprovalStore,
  now: number,
): Promise<
  | { answer: GrantedCall | ApprovalRejectedResult | ApprovalUsedResult }
  | { record: ApprovalRecord | undefined }
> {
  let record = await store.findOpen(bindingKey, now);
  if (
    record?.status === 'approved' &&
    record.continues !== undefined &&
    call.callIdGiven &&
    call.continuation === 'run'
  ) {
    // The same call, resumed after it asked the human: its approval carries over, once.
    if (await store.transition(record.id, 'approved', 'consumed'))
      return { answer: { granted: true, approvalId: record.id, expiresAt: record.expiresAt } };
    record = await store.findOpen(bindingKey, now);
  }
  if (record?.status === 'consumed') {
    // The tombstone of this very tool call: it already ran (or its rejection was reported).
    if (call.callIdGiven) return { answer: alreadyHandled(call.tool, call.callId) };
    record = undefined;
  }
  if (record?.status === 'rejected') {
    const consumed = await store.transition(record.id, 'rejected', 'consumed');
    if (consumed) return { answer: rejectedResult(call.tool, consumed.reason ?? '') };
    record = undefined;
  }
  return { record };
}

/**
 * Creates the approval gate. A request is bound to the tool, the SHA-256 of the canonical JSON of
 * the exact arguments the tool will receive, the account and the session; grants are
 * HMAC-signed over the same, expire, and are consumed by an atomic store transition.
 */
export function createApprovalGate(options: ApprovalGateOptions): ApprovalGate {
  const { store, keys, ttlMs, budget } = options;

  const notFound = (approvalId: unknown, what: string): KsadkError =>
    new KsadkError(
      'approval_not_found',
      `Approval request ${idForMessage(approvalId)} is unknown, expired, ${what}.`,
    );

  /** The record when it exists, is unexpired and belongs to the principal. */
  const owned = async (
    approvalId: string,
    principal: ApprovalPrincipal | undefined,
  ): Promise<ApprovalRecord | undefined> => {
    if (typeof approvalId !== 'string' || !APPROVAL_ID.test(approvalId)) return undefined;
    const record = await store.get(approvalId);
    if (!record || record.status === 'consumed' || record.expiresAt <= Date.now()) return undefined;
    return owns(principalOf(principal), record) ? record : undefined;
  };

  return {
    async check(call) {
      const now = Date.now();
      const binding = bindingOf(call.tool, call.args, call.context);
      if (call.approval !== undefined) {
        const granted = await presentedGrant(call.approval, binding, options, now);
        if (granted) return granted;
      }
      const bindingKey = bindingKeyOf(binding, call.callIdGiven ? call.callId : undefined);
      const open = await openRecord(call, bindingKey, store, now);
      if ('answer' in open) return open.answer;
      let { record } = open;
      if (!record) {
        record = newApprovalRecord(binding, bindingKey, {
          status: 'pending',
          createdAt: now,
          expiresAt: now + ttlMs,
        });
        await store.create(record);
        options.onRequested?.(requestOf(record), call.context);
      }
      return gatewayFailure(
        'approval_required',
        `Calling ${call.tool.name} needs the user's approval. The request was sent to the user; do not retry or work around it, wait for their decision.`,
        {
          type: 'approval_required' as const,
          approval_required: true as const,
          approval_request: await requestForModel(record, binding, call.callId, budget),
        },
      );
    },

    async continueAfterInput(call, granted) {
      if (!call.callIdGiven) return;
      const binding = bindingOf(call.tool, call.args, call.context);
      const now = Date.now();
      await store.create(
        newApprovalRecord(binding, bindingKeyOf(binding, call.callId), {
          status: 'approved',
          createdAt: now,
          decidedAt: now,
          // The answer may take the human as long as the approval did.
          expiresAt: Math.max(granted.expiresAt, now + ttlMs),
          continues: granted.approvalId,
        }),
      );
    },

    async approve(approvalId, decision = {}) {
      const record = await owned(approvalId, decision.principal);
      if (record) {
        if (record.status === 'approved') return grantOf(record, keys);
        const approved = await store.transition(approvalId, 'pending', 'approved', {
          decidedAt: Date.now(),
          ...(decision.reason !== undefined ? { reason: decision.reason } : {}),
        });
        if (approved) return grantOf(approved, keys);
      }
      throw notFound(approvalId, 'already rejected or already used');
    },

    async reject(approvalId, decision = {}) {
      const record = await owned(approvalId, decision.principal);
      const rejected = record
        ? await store.transition(approvalId, 'pending', 'rejected', {
            decidedAt: Date.now(),
            reason: decision.reason ?? '',
          })
        : undefined;
      if (!rejected) throw notFound(approvalId, 'already decided');
    },

    async getRequest(approvalId, principal) {
      const record = await owned(approvalId, principal);
      return record ? requestOf(record) : undefined;
    },
  };
}
