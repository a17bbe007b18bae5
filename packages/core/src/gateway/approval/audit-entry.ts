/** What an audit record tells. */
export type ApprovalAuditEvent =
  /** A call asked for a decision; a request was stored. */
  | 'requested'
  /** A human approved a request (once, with edited arguments, or with a standing grant). */
  | 'approved'
  /** A human rejected a request, or a standing rejection refused a call. */
  | 'rejected'
  /** A request's deadline passed without a decision; it was resolved by its expiry rule. */
  | 'expired'
  /** A call ran on an approval: a single-use grant, a continuation, or a standing grant. */
  | 'used'
  /** A replayed call (same tool call id), or a used grant presented again, was refused. */
  | 'replay_refused'
  /** A standing grant or rejection was revoked. */
  | 'revoked'
  /** A user's credential was stored (signed in, or a key given). */
  | 'credential_granted'
  /** A call was handed a stored credential. */
  | 'credential_used'
  /** A credential's tokens were refreshed. */
  | 'credential_refreshed'
  /** A credential was revoked by the host, or dropped after a failed refresh. */
  | 'credential_revoked';

/** How a decision was made or a call let through. */
export type ApprovalAuditHow =
  | 'once'
  | 'edited'
  | 'standing_grant'
  | 'expiry'
  | 'continuation'
  | 'policy';

/**
 * One append-only audit record of an approval decision or use. It holds the argument digest, never
 * the arguments, unless the host opted in (`auditArguments`).
 */
export interface ApprovalAuditEntry {
  /** `aud_` + 32 hex characters. */
  readonly id: string;
  /** Epoch milliseconds. */
  readonly at: number;
  readonly event: ApprovalAuditEvent;
  readonly how?: ApprovalAuditHow;
  readonly accountId: string;
  /** `''` when the call carried no user. */
  readonly userId: string;
  readonly sessionId: string;
  readonly toolName: string;
  /** SHA-256 of the canonical JSON of the arguments that ran (or would have run). */
  readonly argsDigest: string;
  readonly approvalId?: string;
  /** The standing grant that decided, when one did. */
  readonly grantId?: string;
  /** Who decided (`account:<id>`, `user:<id>`, `admin`), for a human decision. */
  readonly by?: string;
  readonly reason?: string;
  /** The arguments, only when the gateway was told to record them. */
  readonly arguments?: Readonly<Record<string, unknown>>;
  /** The credential a `credential_*` record is about. */
  readonly credentialId?: string;
}
