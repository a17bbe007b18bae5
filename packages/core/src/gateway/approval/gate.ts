import { createHash, randomBytes } from 'node:crypto';
import { budgetToolOutput, type ResultBudget } from '../../budget/result-budget.js';
import {
  getInvocationContextOrEmpty,
  type InvocationContext,
} from '../../context/invocation-context.js';
import { KsadkError } from '../../errors/ksadk-error.js';
import type { Tool } from '../../tool/tool.js';
import { canonicalJson } from '../../util/canonical-json.js';
import { echoValue } from '../../util/sanitize-message.js';
import type { ApprovalDecisionOptions, ApprovalPrincipal } from '../gateway-types.js';
import type {
  ApprovalRejectedResult,
  ApprovalRequest,
  ApprovalRequiredResult,
  ApprovalUsedResult,
  ModelApprovalRequest,
} from '../results.js';
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

const APPROVAL_ID = /^appr_[0-9a-f]{32}$/;

/** An approval id as it may appear in an error: real ids whole, anything else a short clean prefix. */
function idForMessage(id: unknown): string {
  if (typeof id !== 'string') return '(not a string)';
  return APPROVAL_ID.test(id) ? id : JSON.stringify(echoValue(id, 40));
}

function principalOf(given: ApprovalPrincipal | undefined): ApprovalPrincipal {
  if (given) return given;
  const context = getInvocationContextOrEmpty();
  return {
    accountId: context.accountId ?? '',
    ...(context.userId ? { userId: context.userId } : {}),
  };
}

/** Whether `principal` may see and decide `record`. */
function owns(principal: ApprovalPrincipal, record: ApprovalRecord): boolean {
  if ('admin' in principal) return principal.admin === true;
  if (record.accountId !== principal.accountId) return false;
  return (
    principal.userId === undefined || record.userId === '' || record.userId === principal.userId
  );
}

const bindingKeyOf = (
  tool: string,
  digest: string,
  account: string,
  session: string,
  callId: string | undefined,
): string =>
  createHash('sha256')
    .update(JSON.stringify([tool, digest, account, session, ...(callId ? [callId] : [])]))
    .digest('hex');

/** The answer to a replayed call whose approval was already decided and handled. */
function alreadyHandled(tool: Tool, callId: string): ApprovalUsedResult {
  return {
    ok: false,
    approval_required: false,
    error_type: 'approval_already_used',
    error_message: `This call to ${tool.name} (tool call ${echoValue(callId, 80)}) was already decided and handled once; a replayed call is not run again.`,
    tool_name: tool.name,
  };
}

function requestOf(record: ApprovalRecord): ApprovalRequest {
  return {
    id: record.id,
    tool_name: record.toolName,
    risk_level: record.riskLevel,
    side_effects: [...record.sideEffects],
    arguments: structuredClone(record.arguments) as Record<string, unknown>,
    args_digest: record.argsDigest,
    expires_at: new Date(record.expiresAt).toISOString(),
  };
}

/**
 * Creates the approval gate. A request is bound to the tool, the SHA-256 of the canonical JSON of
 * the exact arguments the tool will receive, the account and the session; grants are
 * HMAC-signed over the same, expire, and are consumed by an atomic store transition.
 */
export function createApprovalGate(options: ApprovalGateOptions): ApprovalGate {
  const { store, keys, ttlMs, budget } = options;

  const grantOf = (record: ApprovalRecord): ApprovalGrant => ({
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
  });

  /** The request as the model sees it: large arguments become a preview and a persisted copy. */
  const forModel = async (
    record: ApprovalRecord,
    json: string,
    call: GatedCall,
  ): Promise<ModelApprovalRequest> => {
    const { arguments: args, ...rest } = requestOf(record);
    const limit = Math.min(budget.maxChars, budget.persistThresholdChars);
    if (json.length <= limit) return { ...rest, arguments: args };
    const budgeted = await budgetToolOutput(call.tool.name, 'arguments', json, {
      budget,
      metadata: { toolCallId: call.callId },
      context: call.context,
    });
    return {
      ...rest,
      arguments_preview: budgeted.value,
      arguments_truncated: true,
      arguments_original_chars: json.length,
      ...(budgeted.persisted ? { persisted_outputs: { arguments: budgeted.persisted } } : {}),
    };
  };

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
      const { tool, args, context, approval } = call;
      const now = Date.now();
      const json = canonicalJson(args);
      const digest = createHash('sha256').update(json).digest('hex');
      const account = context.accountId ?? '';
      const session = context.sessionId ?? '';
      if (approval !== undefined) {
        const token = typeof approval === 'string' ? approval : approval?.token;
        const payload = verifyGrant(token, keys.verify);
        if (
          payload &&
          payload.tool === tool.name &&
          payload.digest === digest &&
          payload.account === account &&
          payload.session === session &&
          payload.exp > now &&
          (await store.transition(payload.id, 'approved', 'consumed'))
        ) {
          return { granted: true, approvalId: payload.id, expiresAt: payload.exp };
        }
      }
      const bindingKey = bindingKeyOf(
        tool.name,
        digest,
        account,
        session,
        call.callIdGiven ? call.callId : undefined,
      );
      let record = await store.findOpen(bindingKey, now);
      if (
        record?.status === 'approved' &&
        record.continues !== undefined &&
        call.callIdGiven &&
        call.continuation === 'run'
      ) {
        // The same call, resumed after it asked the human: its approval carries over, once.
        if (await store.transition(record.id, 'approved', 'consumed'))
          return { granted: true, approvalId: record.id, expiresAt: record.expiresAt };
        record = await store.findOpen(bindingKey, now);
      }
      if (record?.status === 'consumed') {
        // The tombstone of this very tool call: it already ran (or its rejection was reported).
        if (call.callIdGiven) return alreadyHandled(tool, call.callId);
        record = undefined;
      }
      if (record?.status === 'rejected') {
        const consumed = await store.transition(record.id, 'rejected', 'consumed');
        if (consumed) {
          const reason = consumed.reason ?? '';
          return {
            ok: false,
            type: 'approval_rejected',
            approval_required: false,
            error_type: 'approval_rejected',
            error_message: `The user rejected this call to ${tool.name}${reason ? `: ${reason}` : '.'} Do not retry it unchanged.`,
            tool_name: tool.name,
            risk_level: tool.policy.riskLevel,
            reason,
          };
        }
        record = undefined;
      }
      if (!record) {
        record = Object.freeze({
          id: `appr_${randomBytes(16).toString('hex')}`,
          bindingKey,
          toolName: tool.name,
          argsDigest: digest,
          arguments: structuredClone(args),
          argumentsChars: json.length,
          accountId: account,
          userId: context.userId ?? '',
          sessionId: session,
          riskLevel: tool.policy.riskLevel,
          sideEffects: tool.policy.sideEffects,
          status: 'pending',
          createdAt: now,
          expiresAt: now + ttlMs,
        } satisfies ApprovalRecord);
        await store.create(record);
        options.onRequested?.(requestOf(record), context);
      }
      return {
        ok: false,
        type: 'approval_required',
        approval_required: true,
        error_type: 'approval_required',
        error_message: `Calling ${tool.name} needs the user's approval. The request was sent to the user; do not retry or work around it, wait for their decision.`,
        approval_request: await forModel(record, json, call),
      };
    },

    async continueAfterInput(call, granted) {
      if (!call.callIdGiven) return;
      const json = canonicalJson(call.args);
      const digest = createHash('sha256').update(json).digest('hex');
      const account = call.context.accountId ?? '';
      const session = call.context.sessionId ?? '';
      const now = Date.now();
      await store.create(
        Object.freeze({
          id: `appr_${randomBytes(16).toString('hex')}`,
          bindingKey: bindingKeyOf(call.tool.name, digest, account, session, call.callId),
          toolName: call.tool.name,
          argsDigest: digest,
          arguments: structuredClone(call.args),
          argumentsChars: json.length,
          accountId: account,
          userId: call.context.userId ?? '',
          sessionId: session,
          riskLevel: call.tool.policy.riskLevel,
          sideEffects: call.tool.policy.sideEffects,
          status: 'approved',
          createdAt: now,
          decidedAt: now,
          // The answer may take the human as long as the approval did.
          expiresAt: Math.max(granted.expiresAt, now + ttlMs),
          continues: granted.approvalId,
        } satisfies ApprovalRecord),
      );
    },

    async approve(approvalId, decision = {}) {
      const record = await owned(approvalId, decision.principal);
      if (record) {
        if (record.status === 'approved') return grantOf(record);
        const approved = await store.transition(approvalId, 'pending', 'approved', {
          decidedAt: Date.now(),
          ...(decision.reason !== undefined ? { reason: decision.reason } : {}),
        });
        if (approved) return grantOf(approved);
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
