import type { Tool } from '../../tool/tool.js';
import { validateToolInput } from '../validate-input.js';
import type { CallBinding } from './approval-record.js';
import { type ApprovalGrant, type ApprovalKeys, signGrant, verifyGrant } from './grant.js';
import { deadlineOf } from './record-filters.js';
import type { ApprovalRecord, ApprovalStore } from './store.js';

/** A grant of `record`, signed: bound to its tool, arguments (and edit), account, session and deadline. */
export function grantOf(
  record: ApprovalRecord,
  keys: ApprovalKeys,
  standingGrantId?: string,
): ApprovalGrant {
  return {
    approvalId: record.id,
    toolName: record.toolName,
    expiresAt: new Date(deadlineOf(record)).toISOString(),
    token: signGrant(
      {
        id: record.id,
        tool: record.toolName,
        digest: record.argsDigest,
        account: record.accountId,
        session: record.sessionId,
        exp: deadlineOf(record),
        ...(record.edited ? { run: record.edited.digest } : {}),
      },
      keys.sign,
    ),
    ...(record.edited
      ? { editedArguments: structuredClone(record.edited.arguments) as Record<string, unknown> }
      : {}),
    ...(standingGrantId !== undefined ? { standingGrantId } : {}),
  };
}

/** What a presented grant comes to. */
export type PresentedGrant =
  | { readonly kind: 'none' }
  /** Valid for this call, but already used: a replay. */
  | { readonly kind: 'used'; readonly approvalId: string }
  /** The human's edited arguments fail the tool's schema: nothing runs. */
  | { readonly kind: 'invalid_edit'; readonly approvalId: string; readonly message: string }
  | {
      readonly kind: 'granted';
      readonly record: ApprovalRecord;
      readonly expiresAt: number;
      /** The edited arguments, validated, when the human edited the call. */
      readonly edited?: {
        readonly raw: Record<string, unknown>;
        readonly args: Record<string, unknown>;
      };
    };

/** The edited arguments of an approved record, validated against `tool`'s schema. */
export async function validatedEdit(
  tool: Tool,
  record: ApprovalRecord,
): Promise<{ raw: Record<string, unknown>; args: Record<string, unknown> } | { message: string }> {
  const raw = structuredClone(record.edited?.arguments ?? {}) as Record<string, unknown>;
  const validation = await validateToolInput(tool, structuredClone(raw));
  if (validation.ok) return { raw, args: validation.value };
  const first = validation.issues[0];
  return {
    message: first ? `${first.path ? `${first.path}: ` : ''}${first.message}` : 'not valid',
  };
}

/**
 * The presented grant, checked and consumed when it is valid for exactly this call and unexpired.
 * A grant for edited arguments is valid for the call it was decided on (the model's arguments) or
 * for the edited arguments themselves, and always runs the edited ones; a plain grant only for its
 * own arguments.
 */
export async function presentedGrant(
  approval: ApprovalGrant | string,
  binding: CallBinding,
  store: ApprovalStore,
  keys: ApprovalKeys,
  now: number,
): Promise<PresentedGrant> {
  const token = typeof approval === 'string' ? approval : approval?.token;
  const payload = verifyGrant(token, keys.verify);
  if (
    !payload ||
    payload.tool !== binding.tool.name ||
    !(
      payload.digest === binding.digest ||
      (payload.run !== undefined && payload.run === binding.digest)
    ) ||
    payload.account !== binding.account ||
    payload.session !== binding.session ||
    !(payload.exp > now)
  )
    return { kind: 'none' };
  const record = await store.get(payload.id);
  if (!record || record.status === 'consumed') return { kind: 'used', approvalId: payload.id };
  if (record.status !== 'approved' || (record.edited?.digest ?? undefined) !== payload.run)
    return { kind: 'none' };
  let edited: { raw: Record<string, unknown>; args: Record<string, unknown> } | undefined;
  if (record.edited) {
    const checked = await validatedEdit(binding.tool, record);
    if ('message' in checked) {
      await store.transition(payload.id, 'approved', 'consumed');
      return { kind: 'invalid_edit', approvalId: payload.id, message: checked.message };
    }
    edited = checked;
  }
  if (!(await store.transition(payload.id, 'approved', 'consumed')))
    return { kind: 'used', approvalId: payload.id };
  return { kind: 'granted', record, expiresAt: payload.exp, ...(edited ? { edited } : {}) };
}
