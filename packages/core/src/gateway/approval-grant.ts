import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { KsadkError } from '../errors/ksadk-error.js';

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
}

/** Resolves the signing secret: the option, else `KSADK_APPROVAL_SECRET`, else 32 random bytes for this process. */
export function resolveApprovalSecret(
  secret: string | Uint8Array | undefined,
  env: NodeJS.ProcessEnv = process.env,
): Uint8Array {
  const value = secret ?? env[APPROVAL_SECRET_ENV];
  if (value === undefined || value === '') return randomBytes(32);
  const bytes = typeof value === 'string' ? Buffer.from(value, 'utf8') : value;
  if (bytes.length < 16) {
    throw new KsadkError(
      'invalid_config',
      `${APPROVAL_SECRET_ENV} (or approvalSecret) must be at least 16 bytes long.`,
    );
  }
  return bytes;
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
 * Verifies a grant token and returns its payload, or `undefined` when the token is malformed
 * or its signature does not match (constant-time comparison).
 */
export function verifyGrant(token: unknown, secret: Uint8Array): GrantPayload | undefined {
  if (typeof token !== 'string' || token.length > 4096) return undefined;
  const dot = token.indexOf('.');
  if (dot <= 0 || dot !== token.lastIndexOf('.')) return undefined;
  const body = token.slice(0, dot);
  const given = Buffer.from(token.slice(dot + 1), 'base64url');
  const expected = mac(secret, body);
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return undefined;
  try {
    const payload = JSON.parse(Buffer.from(body, 'base64url').toString('utf8')) as GrantPayload;
    const ok =
      typeof payload.id === 'string' &&
      typeof payload.tool === 'string' &&
      typeof payload.digest === 'string' &&
      typeof payload.account === 'string' &&
      typeof payload.session === 'string' &&
      typeof payload.exp === 'number';
    return ok ? payload : undefined;
  } catch {
    return undefined;
  }
}
