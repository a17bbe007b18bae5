import { createHash, randomBytes } from 'node:crypto';
import type { InvocationContext } from '../../context/invocation-context.js';
import type { RiskLevel } from '../../tool/policy.js';
import type { Tool } from '../../tool/tool.js';
import { canonicalDigest, canonicalJson } from '../../util/canonical-json.js';
import { redactSecrets } from '../../util/redact.js';
import { echoValue } from '../../util/sanitize-message.js';
import type { ApprovalRecord } from './store.js';

/** What an approval is bound to: the exact arguments (canonical JSON and its digest), the account and the session. */
export interface CallBinding {
  readonly tool: Tool;
  readonly args: Record<string, unknown>;
  readonly context: InvocationContext;
  /** Canonical JSON of the arguments. */
  readonly json: string;
  /** SHA-256 of `json`. */
  readonly digest: string;
  readonly account: string;
  readonly session: string;
}

/** The binding of one call to `tool` with `args`. */
export function bindingOf(
  tool: Tool,
  args: Record<string, unknown>,
  context: InvocationContext,
): CallBinding {
  return {
    tool,
    args,
    context,
    json: canonicalJson(args),
    digest: canonicalDigest(args),
    account: context.accountId ?? '',
    session: context.sessionId ?? '',
  };
}

/** The key records of one binding are found by (with the framework's call id, when given). */
export function bindingKeyOf(binding: CallBinding, callId: string | undefined): string {
  const { tool, digest, account, session } = binding;
  return createHash('sha256')
    .update(JSON.stringify([tool.name, digest, account, session, ...(callId ? [callId] : [])]))
    .digest('hex');
}

/** How a new record starts: pending, or approved at once (a continuation). */
type RecordState =
  | { status: 'pending' }
  | { status: 'approved'; decidedAt: number; continues: string };

/** What a new record says about its call besides the binding. */
export interface RecordFacts {
  readonly createdAt: number;
  /** When a human's decision is due. */
  readonly decideBy: number;
  /** When the store may forget the record (after `decideBy`: expiry and replays stay recognisable). */
  readonly expiresAt: number;
  readonly riskLevel: RiskLevel;
  readonly why: string;
  readonly summary: string | undefined;
  readonly callId: string | undefined;
  readonly onExpiry: 'reject' | 'approve';
  readonly standingAllowed: boolean;
}

/** A new, frozen approval record of `binding`, with a fresh `appr_` id. */
export function newApprovalRecord(
  binding: CallBinding,
  bindingKey: string,
  state: RecordState,
  facts: RecordFacts,
): ApprovalRecord {
  const { tool, args, context } = binding;
  return Object.freeze({
    id: `appr_${randomBytes(16).toString('hex')}`,
    bindingKey,
    toolName: tool.name,
    argsDigest: binding.digest,
    arguments: structuredClone(args),
    argumentsChars: binding.json.length,
    accountId: binding.account,
    userId: context.userId ?? '',
    sessionId: binding.session,
    riskLevel: facts.riskLevel,
    sideEffects: tool.policy.sideEffects,
    status: state.status,
    createdAt: facts.createdAt,
    ...(state.status === 'approved' ? { decidedAt: state.decidedAt } : {}),
    expiresAt: facts.expiresAt,
    ...(state.status === 'approved' ? { continues: state.continues } : {}),
    decideBy: facts.decideBy,
    onExpiry: facts.onExpiry,
    why: redactSecrets(facts.why),
    ...(facts.summary !== undefined ? { summary: facts.summary } : {}),
    ...(facts.callId !== undefined ? { callId: facts.callId } : {}),
    standingAllowed: facts.standingAllowed,
  } satisfies ApprovalRecord);
}

/** The tool's own summary of a call, when it gives a usable one (what it throws is ignored). */
export function summaryOf(tool: Tool, args: Record<string, unknown>): string | undefined {
  if (!tool.describeCall) return undefined;
  try {
    const text = tool.describeCall(structuredClone(args));
    if (typeof text !== 'string' || text.trim() === '') return undefined;
    return redactSecrets(echoValue(text.trim(), 299)).slice(0, 300);
  } catch {
    return undefined;
  }
}
