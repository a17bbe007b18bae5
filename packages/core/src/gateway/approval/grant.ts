import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { KsadkError } from '../../errors/ksadk-error.js';

/** The environment variable holding the HMAC secret that signs approval grants. */
export const APPROVAL_SECRET_ENV = 'KSADK_APPROVAL_SECRET';

/**
 * A host-issued, single-use permission to run one pending call. Hand it to
 * `gateway.invoke(tool, args, { approval })`: only the `token` is trusted (it is HMAC-signed);
 * the other fields are a readable copy.
 */
export interface ApprovalGrant {
  /** The approval request id this grant answers. */
  readonly approvalId: string;
  readonly toolName: string;
  /** ISO 8601 time after which the grant is void. */
  readonly expiresAt: string;
  /** Signed token: `base64url(payload).base64url(hmac)`. */
  readonly token: string;
  /** Set when the human edited the arguments: the call runs with these, not the model's. */
  readonly editedArguments?: Readonly<Record<string, unknown>>;
  /** The standing grant made with this decision ("always allow"), when one was. */
  readonly standingGrantId?: string;
}

/** What a grant token is bound to. */
export interface GrantPayload {
  /** Approval request id. */
  readonly id: string;
  readonly tool: string;
  readonly digest: string;
  readonly account: string;
  readonly session: string;
  /** Epoch milliseconds. */
  readonly exp: number;
  /** The digest of the arguments the human edited the call to: what runs instead of `digest`'s. */
  readonly run?: string;
}

/** The environment variable listing retired secrets that still verify grants (comma-separated). */
export const APPROVAL_PREVIOUS_SECRETS_ENV = 'KSADK_APPROVAL_PREVIOUS_SECRETS';

/** The keys grants are signed and verified with: one signing key, any number of older keys that still verify. */
export interface ApprovalKeys {
  readonly sign: Uint8Array;
  /** The signing key first, then retired keys. */
  readonly verify: readonly Uint8Array[];
}

/** A secret value, as the option or the environment gives it. */
export type ApprovalSecret = string | Uint8Array;

function keyBytes(value: ApprovalSecret, what: string): Uint8Array {
  const bytes = typeof value === 'string' ? Buffer.from(value, 'utf8') : value;
  if (bytes.length < 16)
    throw new KsadkError('invalid_config', `${what} must be at least 16 bytes long.`);
  return bytes;
}

/**
 * Resolves the signing and verification keys: `secret` (or `KSADK_APPROVAL_SECRET`) signs; the
 * retired `previous` secrets (or `KSADK_APPROVAL_PREVIOUS_SECRETS`, comma-separated) still verify,
 * so grants issued before a rotation stay valid until they expire. Without a configured secret a
 * random per-process key is used — refused when `shared` is set, because grants must then verify on
 * every instance.
 */
export function resolveApprovalKeys(
  options: {
    secret?: ApprovalSecret | undefined;
    previous?: readonly ApprovalSecret[] | undefined;
    shared?: boolean | undefined;
  },
  env: NodeJS.ProcessEnv = process.env,
): ApprovalKeys {
  const value = options.secret ?? env[APPROVAL_SECRET_ENV];
  const previous =
    options.previous ??
    (env[APPROVAL_PREVIOUS_SECRETS_ENV] ?? '')
      .split(',')
      .map((item) => item.trim())
      .filter((item) => item !== '');
  if (value === undefined || value === '') {
    if (options.shared) {
      throw new KsadkError(
        'invalid_config',
        `The approval store is shared between processes, so ${APPROVAL_SECRET_ENV} (or approvalSecret) must be set to the same secret of at least 16 bytes on every instance; a random per-process secret would make grants issued by one instance worthless on the others.`,
      );
    }
    if (previous.length > 0) {
      throw new KsadkError(
        'invalid_config',
        `${APPROVAL_PREVIOUS_SECRETS_ENV} (or approvalPreviousSecrets) is set but ${APPROVAL_SECRET_ENV} is not: set the new signing secret too.`,
      );
    }
    const random = randomBytes(32);
    return { sign: random, verify: [random] };
  }
  const sign = keyBytes(value, `${APPROVAL_SECRET_ENV} (or approvalSecret)`);
  const retired = previous.map((item, index) =>
    keyBytes(item, `Retired approval secret #${index + 1}`),
  );
  return { sign, verify: [sign, ...retired] };
}

function mac(secret: Uint8Array, body: string): Buffer {
  return createHmac('sha256', secret).update(body).digest();
}

/** Signs a grant payload. */
export function signGrant(payload: GrantPayload, secret: Uint8Array): string {
  const body = Buffer.from(JSON.stringify(payload), 'utf8').toString('base64url');
  return `${body}.${mac(secret, body).toString('base64url')}`;
}

/**
 * Verifies a grant token against each key (the signing key, then retired ones) and returns its
 * payload, or `undefined` when the token is malformed or no key's signature matches
 * (constant-time comparison).
 */
export function verifyGrant(
  token: unknown,
  keys: Uint8Array | readonly Uint8Array[],
): GrantPayload | undefined {
  if (typeof token !== 'string' || token.length > 4096) return undefined;
  const dot = token.indexOf('.');
  if (dot <= 0 || dot !== token.lastIndexOf('.')) return undefined;
  const body = token.slice(0, dot);
  const given = Buffer.from(token.slice(dot + 1), 'base64url');
  const candidates = keys instanceof Uint8Array ? [keys] : keys;
  const signed = candidates.some((key) => {
    const expected = mac(key, body);
    return given.length === expected.length && timingSafeEqual(given, expected);
  });
  if (!signed) return undefined;
  try {
    const payload = JSON.parse(Buffer.from(body, 'base64url').toString('utf8')) as GrantPayload;
    const ok =
      typeof payload.id === 'string' &&
      typeof payload.tool === 'string' &&
      typeof payload.digest === 'string' &&
      typeof payload.account === 'string' &&
      typeof payload.session === 'string' &&
      typeof payload.exp === 'number' &&
      (payload.run === undefined || typeof payload.run === 'string');
    return ok ? payload : undefined;
  } catch {
    return undefined;
  }
}
