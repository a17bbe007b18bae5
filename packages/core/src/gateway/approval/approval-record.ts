import { createHash, randomBytes } from 'node:crypto';
import type { InvocationContext } from '../../context/invocation-context.js';
import type { Tool } from '../../tool/tool.js';
import { canonicalDigest, canonicalJson } from '../../util/canonical-json.js';
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
  | { status: 'pending'; createdAt: number; expiresAt: number }
  | {
      status: 'approved';
      createdAt: number;
      decidedAt: number;
      expiresAt: number;
      continues: string;
    };

/** A new, frozen approval record of `binding`, with a fresh `appr_` id. */
export function newApprovalRecord(
  binding: CallBinding,
  bindingKey: string,
  state: RecordState,
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
    riskLevel: tool.policy.riskLevel,
    sideEffects: tool.policy.sideEffects,
    status: state.status,
    createdAt: state.createdAt,
    ...(state.status === 'approved' ? { decidedAt: state.decidedAt } : {}),
    expiresAt: state.expiresAt,
    ...(state.status === 'approved' ? { continues: state.continues } : {}),
  } satisfies ApprovalRecord);
}
