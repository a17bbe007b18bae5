import type { Tool } from '../../tool/tool.js';
import { canonicalDigest } from '../../util/canonical-json.js';
import { recentKeys } from '../../util/recent-keys.js';
import { echoValue } from '../../util/sanitize-message.js';
import type { ApprovalExpiredResult, ApprovalUsedResult, ToolResult } from '../results.js';
import { gatewayFailure } from '../results.js';
import {
  bindingKeyOf,
  bindingOf,
  type CallBinding,
  newApprovalRecord,
  type RecordFacts,
  summaryOf,
} from './approval-record.js';
import { inboxItemOf, requestForModel } from './approval-request.js';
import {
  type ApprovalGateOptions,
  type GateAnswer,
  type GatedCall,
  type GateKit,
  type GrantedCall,
  gateKit,
  rejectedResult,
} from './gate-kit.js';
import type { ApprovalGrant } from './grant.js';
import { presentedGrant, validatedEdit } from './presented-grant.js';
import { deadlineOf } from './record-filters.js';
import { allowedByStanding, refusedByStanding, standingCover } from './standing-check.js';
import { isActiveGrant, STANDING_GRANT_ID } from './standing-grant.js';
import type { ApprovalRecord } from './store-types.js';

export type {
  ApprovalDecidedEvent,
  ApprovalGateOptions,
  GateAnswer,
  GatedCall,
  GrantedCall,
} from './gate-kit.js';

/** The answer to a replayed call whose approval was already decided and handled. */
function alreadyHandled(tool: Tool, callId: string): ApprovalUsedResult {
  return gatewayFailure(
    'approval_already_used',
    `This call to ${tool.name} (tool call ${echoValue(callId, 80)}) was already decided and handled once; a replayed call is not run again.`,
    { approval_required: false as const, tool_name: tool.name },
  );
}

/** The answer to a call whose edited arguments fail the tool's schema. */
function invalidEdit(tool: Tool, message: string): ToolResult {
  return gatewayFailure(
    'invalid_arguments',
    `The arguments the user edited this call to are not valid for ${tool.name} (${message}); nothing ran. Ask the user how to proceed.`,
  );
}

function expiredResult(tool: Tool, record: ApprovalRecord): ApprovalExpiredResult {
  return gatewayFailure(
    'approval_expired',
    `Nobody decided on this call to ${tool.name} before its request expired, so it was rejected and nothing ran. Tell the user; ask again only if they still want it.`,
    {
      type: 'approval_expired' as const,
      approval_required: false as const,
      tool_name: tool.name,
      risk_level: record.riskLevel,
    },
  );
}

type OpenRecord =
  | { answer: GrantedCall | GateAnswer }
  | { record: ApprovalRecord | undefined }
  /** Another call changed the record in between: read it again. */
  | { again: true };

/** A pending request past its deadline, resolved once by its expiry rule. */
async function resolveExpired(
  kit: GateKit,
  call: GatedCall,
  record: ApprovalRecord,
): Promise<OpenRecord> {
  const { store } = kit.options;
  const at = Date.now();
  const resolved = await store.transition(record.id, 'pending', 'consumed', {
    decidedAt: at,
    decidedBy: 'expiry',
    reason: 'expired',
  });
  if (!resolved) return { again: true };
  const approve = record.onExpiry === 'approve';
  const reason = approve ? 'approved on expiry' : 'rejected on expiry';
  await kit.audit('expired', { record }, { how: 'expiry', approvalId: record.id, reason });
  kit.decided(resolved, { decision: 'expired', how: 'expiry', reason });
  if (!approve) return { answer: expiredResult(call.tool, record) };
  await kit.audit('used', { record }, { how: 'expiry', approvalId: record.id });
  return {
    answer: { granted: true, approvalId: record.id, expiresAt: record.expiresAt, how: 'expiry' },
  };
}

/** The same call resumed after it asked the human: its approval (and edit) carries over, once. */
async function continued(
  kit: GateKit,
  call: GatedCall,
  record: ApprovalRecord,
): Promise<OpenRecord> {
  const { store } = kit.options;
  // A standing grant revoked (or expired) meanwhile no longer carries the call.
  const grantId = record.continues ?? '';
  if (STANDING_GRANT_ID.test(grantId)) {
    const grant = await store.getStandingGrant(grantId);
    if (!grant || !isActiveGrant(grant, Date.now())) {
      if (await store.transition(record.id, 'approved', 'consumed')) return { record: undefined };
      return { again: true };
    }
  }
  const edit = record.edited ? await validatedEdit(call.tool, record) : undefined;
  if (!(await store.transition(record.id, 'approved', 'consumed'))) return { again: true };
  await kit.audit('used', { record }, { how: 'continuation', approvalId: record.continues });
  if (edit && 'message' in edit) return { answer: invalidEdit(call.tool, edit.message) };
  return {
    answer: {
      granted: true,
      approvalId: record.id,
      expiresAt: deadlineOf(record),
      how: 'continuation',
      ...(edit ? { args: edit.args, editedArguments: edit.raw } : {}),
    },
  };
}

/** One reading of the binding's newest record: what it answers by itself, or the open record. */
async function readRecord(
  kit: GateKit,
  call: GatedCall,
  bindingKey: string,
  now: number,
): Promise<OpenRecord> {
  const { store } = kit.options;
  const record = await store.findOpen(bindingKey, now);
  if (!record) return { record: undefined };
  if (record.status === 'approved') {
    if (deadlineOf(record) <= now) return { record: undefined }; // unused before its deadline: void
    if (record.continues !== undefined && call.callIdGiven && call.continuation === 'run')
      return continued(kit, call, record);
    return { record };
  }
  if (record.status === 'consumed') {
    // The tombstone of this very tool call: it already ran (or its rejection was reported).
    if (!call.callIdGiven) return { record: undefined };
    await kit.audit('replay_refused', { record }, { approvalId: record.id });
    return { answer: alreadyHandled(call.tool, call.callId) };
  }
  if (record.status === 'rejected') {
    const consumed = await store.transition(record.id, 'rejected', 'consumed');
    return consumed
      ? { answer: rejectedResult(call.tool, consumed.reason ?? '') }
      : { again: true };
  }
  return deadlineOf(record) <= now ? resolveExpired(kit, call, record) : { record };
}

/**
 * The open record of the call's binding, once the ones that answer the call by themselves are
 * handled: a continued grant is consumed, a tombstone answers a replay, a rejection is reported
 * once, a request past its deadline is resolved by its expiry rule. A record another call changed
 * in between is read again, so a replay racing the first call still finds its tombstone.
 */
async function openRecord(
  kit: GateKit,
  call: GatedCall,
  bindingKey: string,
  now: number,
): Promise<{ answer: GrantedCall | GateAnswer } | { record: ApprovalRecord | undefined }> {
  for (let attempt = 0; attempt < 4; attempt += 1) {
    const read = await readRecord(kit, call, bindingKey, now);
    if (!('again' in read)) return read;
  }
  return { answer: alreadyHandled(call.tool, call.callId) };
}

/** The facts of a new request for `call`. */
function factsOf(
  call: GatedCall,
  binding: CallBinding,
  options: ApprovalGateOptions,
  now: number,
): RecordFacts {
  const { decision, tool } = call;
  const decideBy = now + options.ttlMs;
  const risky = decision.riskLevel === 'high' || decision.riskLevel === 'critical';
  // Silence approves only what a human would wave through: never high, critical or "always ask".
  const onExpiry =
    (tool.policy.onExpiry ?? options.onExpiry) === 'approve' && !risky && !decision.alwaysAsks
      ? 'approve'
      : 'reject';
  return {
    createdAt: now,
    decideBy,
    expiresAt: decideBy + options.retentionMs,
    riskLevel: decision.riskLevel,
    why: decision.why,
    summary: summaryOf(tool, binding.args),
    callId: call.callIdGiven ? call.callId : undefined,
    onExpiry,
    standingAllowed:
      (!decision.alwaysAsks && decision.riskLevel !== 'critical') ||
      tool.policy.allowStandingGrants,
  };
}

/** A call that needs no approval and presented no usable grant: it runs as it is. */
const NOT_NEEDED: GrantedCall = Object.freeze({
  granted: true,
  approvalId: '',
  expiresAt: 0,
  how: 'policy',
});

/** The approval half of the gateway: requests and single-use grants, per call. */
export interface ApprovalGate {
  readonly kit: GateKit;
  /** A grant when the call may run; otherwise the envelope to return. */
  check(call: GatedCall): Promise<GrantedCall | GateAnswer>;
  /**
   * After a granted call stopped to ask the human (`input_required`): re-issues its grant for the
   * same call, so resuming it with the answer runs it without a second approval.
   */
  continueAfterInput(call: GatedCall, granted: GrantedCall): Promise<void>;
  /**
   * The `approval_required` envelope a call that needs a decision would stop with — its pending
   * request, made now when there is none — or `undefined` when something else answers the call (a
   * standing decision, an approved, rejected, used or expired request): `check` then does, when
   * the call is invoked. With `create` false, no request is made. Consumes nothing.
   */
  pendingRequest(call: GatedCall, create: boolean): Promise<GateAnswer | undefined>;
}

/**
 * Creates the approval gate. A request is bound to the tool, the SHA-256 of the canonical JSON of
 * the exact arguments the tool will receive, the account and the session; grants are
 * HMAC-signed over the same, expire, and are consumed by an atomic store transition. Standing
 * grants are looked up in the store by the call's own account, session, user and tool.
 */
export function createApprovalGate(options: ApprovalGateOptions): ApprovalGate {
  const { store, keys, budget } = options;
  const kit = gateKit(options);
  const recentStanding = recentKeys(10_000);

  /** What the grant presented with the call comes to: a grant to run, an answer, or nothing. */
  const presentedCall = async (
    call: GatedCall,
    approval: ApprovalGrant | string,
    binding: CallBinding,
    now: number,
  ): Promise<GrantedCall | GateAnswer | undefined> => {
    const grant = await presentedGrant(approval, binding, store, keys, now);
    if (grant.kind === 'none') return undefined;
    if (grant.kind === 'used') {
      // With the framework's call id, the call's tombstone answers (and audits) the replay below.
      if (!call.callIdGiven)
        await kit.audit('replay_refused', { binding }, { approvalId: grant.approvalId });
      return undefined;
    }
    if (grant.kind === 'invalid_edit') {
      await kit.audit(
        'rejected',
        { binding },
        {
          approvalId: grant.approvalId,
          how: 'edited',
          reason: 'edited arguments failed validation',
        },
      );
      return invalidEdit(call.tool, grant.message);
    }
    const { record, edited } = grant;
    await kit.audit(
      'used',
      { binding },
      {
        how: edited ? 'edited' : 'once',
        approvalId: record.id,
        ...(record.edited ? { argsDigest: record.edited.digest } : {}),
        ...(edited && options.auditArguments ? { arguments: edited.raw } : {}),
      },
    );
    return {
      granted: true,
      approvalId: record.id,
      expiresAt: grant.expiresAt,
      how: edited ? 'edited' : 'once',
      ...(edited ? { args: edited.args, editedArguments: edited.raw } : {}),
    };
  };

  /** The envelope of the call's pending request, made (and announced) when it is new. */
  const required = async (
    call: GatedCall,
    binding: CallBinding,
    bindingKey: string,
    open: ApprovalRecord | undefined,
    now: number,
  ): Promise<GateAnswer> => {
    let record = open;
    if (!record) {
      record = newApprovalRecord(
        binding,
        bindingKey,
        { status: 'pending' },
        factsOf(call, binding, options, now),
      );
      await store.create(record);
      await kit.audit('requested', { record }, { approvalId: record.id, reason: record.why });
      options.onRequested?.(inboxItemOf(record, now), call.context);
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
  };

  return {
    kit,
    async check(call) {
      const now = Date.now();
      const binding = bindingOf(call.tool, call.args, call.context);
      const bindingKey = bindingKeyOf(binding, call.callIdGiven ? call.callId : undefined);
      const cover = call.decision.needed ? await standingCover(kit, call, binding, now) : undefined;
      if (cover?.deny) {
        // A standing rejection wins over everything: a grant presented, a continuation, expiry.
        const open = await store.findOpen(bindingKey, now);
        return refusedByStanding(kit, call, binding, cover.deny, open, now);
      }
      if (call.approval !== undefined) {
        const granted = await presentedCall(call, call.approval, binding, now);
        if (granted) return granted;
      }
      if (!call.decision.needed) return NOT_NEEDED;
      const open = await openRecord(kit, call, bindingKey, now);
      if ('answer' in open) return open.answer;
      const { record } = open;
      // A call the human already approved must come back with that grant: a standing grant never
      // stands in for it (an edited approval would otherwise run the model's arguments).
      if (cover?.allow && record?.status !== 'approved') {
        const allowed = await allowedByStanding(
          kit,
          call,
          binding,
          bindingKey,
          cover.allow,
          record,
          recentStanding,
          now,
        );
        return allowed ?? alreadyHandled(call.tool, call.callId);
      }
      return required(call, binding, bindingKey, record, now);
    },

    async pendingRequest(call, create) {
      if (!call.decision.needed) return undefined;
      const now = Date.now();
      const binding = bindingOf(call.tool, call.args, call.context);
      const bindingKey = bindingKeyOf(binding, call.callIdGiven ? call.callId : undefined);
      const cover = await standingCover(kit, call, binding, now);
      if (cover.deny || cover.allow) return undefined;
      const record = await store.findOpen(bindingKey, now);
      if (record && (record.status !== 'pending' || deadlineOf(record) <= now)) return undefined;
      if (!record && !create) return undefined;
      return required(call, binding, bindingKey, record, now);
    },

    async continueAfterInput(call, granted) {
      if (!call.callIdGiven) return;
      const binding = bindingOf(call.tool, call.args, call.context);
      const now = Date.now();
      // The answer may take the human as long as the approval did (a standing grant: one TTL).
      const decideBy =
        granted.how === 'standing_grant'
          ? now + options.ttlMs
          : Math.max(granted.expiresAt, now + options.ttlMs);
      const record = newApprovalRecord(
        binding,
        bindingKeyOf(binding, call.callId),
        { status: 'approved', decidedAt: now, continues: granted.approvalId },
        {
          ...factsOf(call, binding, options, now),
          decideBy,
          expiresAt: decideBy + options.retentionMs,
        },
      );
      const edited = granted.editedArguments;
      await store.create(
        edited
          ? { ...record, edited: { arguments: edited, digest: canonicalDigest(edited) } }
          : record,
      );
    },
  };
}
