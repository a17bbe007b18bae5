import { type CallBinding, newApprovalRecord } from './approval-record.js';
import {
  type GateAnswer,
  type GatedCall,
  type GateKit,
  type GrantedCall,
  rejectedResult,
} from './gate-kit.js';
import { grantCovers, type StandingGrant } from './standing-grant.js';
import type { ApprovalRecord } from './store-types.js';

/** Whether a standing "always allow" may cover this call at all (see `allowStandingGrants`). */
const coverable = (call: GatedCall): boolean =>
  (!call.decision.alwaysAsks && call.decision.riskLevel !== 'critical') ||
  call.tool.policy.allowStandingGrants;

/** The standing decisions in force that cover this call: a rejection, and a grant. */
export interface StandingCover {
  readonly deny: StandingGrant | undefined;
  readonly allow: StandingGrant | undefined;
}

const NONE: StandingCover = Object.freeze({ deny: undefined, allow: undefined });

/** The standing rejection and grant that cover this call, if any (one store read). */
export async function standingCover(
  kit: GateKit,
  call: GatedCall,
  binding: CallBinding,
  now: number,
): Promise<StandingCover> {
  const found = await kit.options.store.findStandingGrants({
    accountId: binding.account,
    toolName: call.tool.name,
    now,
  });
  if (found.length === 0) return NONE;
  const facts = {
    toolName: call.tool.name,
    accountId: binding.account,
    userId: binding.context.userId ?? '',
    sessionId: binding.session,
    args: binding.args,
  };
  const covers = (grant: StandingGrant): boolean => grantCovers(grant, facts, now);
  return {
    deny: found.find((grant) => grant.effect === 'deny' && covers(grant)),
    allow: coverable(call)
      ? found.find((grant) => grant.effect === 'allow' && covers(grant))
      : undefined,
  };
}

/** A pending request of the same call leaves the inbox, settled by a standing decision. */
async function settle(
  kit: GateKit,
  pending: ApprovalRecord | undefined,
  grant: StandingGrant,
  now: number,
): Promise<void> {
  if (pending?.status !== 'pending') return;
  const settled = await kit.options.store.transition(pending.id, 'pending', 'consumed', {
    decidedAt: now,
    decidedBy: `standing:${grant.id}`,
  });
  if (settled)
    kit.decided(pending, {
      decision: grant.effect === 'deny' ? 'rejected' : 'approved',
      how: 'standing_grant',
      standingGrantId: grant.id,
    });
}

/** A standing rejection refuses the call; it wins over every grant. */
export async function refusedByStanding(
  kit: GateKit,
  call: GatedCall,
  binding: CallBinding,
  deny: StandingGrant,
  pending: ApprovalRecord | undefined,
  now: number,
): Promise<GateAnswer> {
  await settle(kit, pending, deny, now);
  await kit.audit(
    'rejected',
    { binding },
    { how: 'standing_grant', grantId: deny.id, reason: deny.reason },
  );
  return rejectedResult(
    call.tool,
    deny.reason ? `standing rejection: ${deny.reason}` : 'standing rejection',
  );
}

/**
 * A standing grant lets the call through. With the framework's call id it leaves a tombstone
 * first, so a replay of the same call does not run it again; `recent` refuses a replay racing this
 * one in the same process.
 */
export async function allowedByStanding(
  kit: GateKit,
  call: GatedCall,
  binding: CallBinding,
  bindingKey: string,
  allow: StandingGrant,
  pending: ApprovalRecord | undefined,
  recent: { has(key: string): boolean; add(key: string): void },
  now: number,
): Promise<GrantedCall | undefined> {
  if (call.callIdGiven) {
    if (recent.has(bindingKey)) return undefined;
    recent.add(bindingKey);
    const facts = {
      createdAt: now,
      decideBy: now,
      expiresAt: now + kit.options.ttlMs + kit.options.retentionMs,
      riskLevel: call.decision.riskLevel,
      why: call.decision.why,
      summary: undefined,
      callId: call.callId,
      onExpiry: 'reject' as const,
      standingAllowed: true,
    };
    const record = newApprovalRecord(binding, bindingKey, { status: 'pending' }, facts);
    await kit.options.store.create({
      ...record,
      status: 'consumed',
      arguments: {},
      argumentsChars: 0,
      decidedAt: now,
      decidedBy: `standing:${allow.id}`,
    });
  }
  await settle(kit, pending, allow, now);
  await kit.audit('used', { binding }, { how: 'standing_grant', grantId: allow.id });
  return { granted: true, approvalId: allow.id, expiresAt: allow.expiresAt, how: 'standing_grant' };
}
