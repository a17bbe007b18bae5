import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';
import { KsadkError } from '../errors/ksadk-error.js';

/** The environment variable holding the key that encrypts stored credentials (≥ 32 bytes). */
export const CREDENTIAL_KEY_ENV = 'KSADK_CREDENTIAL_KEY';
/** Retired keys that still decrypt, comma-separated (never used to encrypt). */
export const CREDENTIAL_PREVIOUS_KEYS_ENV = 'KSADK_CREDENTIAL_PREVIOUS_KEYS';

/** A secret a credential key is made from, as the option or the environment gives it. */
export type CredentialKeyInput = string | Uint8Array;

/** One AES-256-GCM key and its id (a short hash, stored beside each sealed value). */
interface SealingKey {
  readonly id: string;
  readonly key: Buffer;
}

/** The keys of a credential store: one that seals, any number of retired ones that still open. */
export interface CredentialKeys {
  readonly current: SealingKey;
  readonly all: readonly SealingKey[];
}

/** A value sealed with AES-256-GCM: what a store keeps (unreadable without the key). */
export interface SealedValue {
  /** The id of the key that sealed it. */
  readonly keyId: string;
  /** base64url: 12-byte nonce ‖ ciphertext ‖ 16-byte tag. */
  readonly data: string;
}

function sealingKey(input: CredentialKeyInput, what: string): SealingKey {
  const bytes = typeof input === 'string' ? Buffer.from(input, 'utf8') : Buffer.from(input);
  if (bytes.length < 32)
    throw new KsadkError('invalid_config', `${what} must be at least 32 bytes long.`);
  // The key is derived, so a passphrase of any length ≥ 32 bytes gives a 256-bit key.
  const key = createHash('sha256').update('ksadk credential key\0').update(bytes).digest();
  const id = createHash('sha256')
    .update('ksadk credential key id\0')
    .update(key)
    .digest('hex')
    .slice(0, 16);
  return { id, key };
}

/**
 * The credential keys from the options or the environment: `key` (or `KSADK_CREDENTIAL_KEY`)
 * seals; `previous` (or `KSADK_CREDENTIAL_PREVIOUS_KEYS`) still open what they sealed, so keys can
 * be rotated. There is no random default: a credential sealed with a key nobody kept is lost, and a
 * store that may persist must be told its key.
 *
 * @throws {KsadkError} `invalid_config` when no key is configured, or a key is shorter than 32 bytes.
 */
export function resolveCredentialKeys(
  options: {
    key?: CredentialKeyInput | undefined;
    previous?: readonly CredentialKeyInput[] | undefined;
  },
  env: NodeJS.ProcessEnv = process.env,
): CredentialKeys {
  const given = options.key ?? env[CREDENTIAL_KEY_ENV];
  if (given === undefined || given === '')
    throw new KsadkError(
      'invalid_config',
      `Stored credentials are encrypted: set ${CREDENTIAL_KEY_ENV} (or credentialKey) to a secret of at least 32 bytes, the same on every instance.`,
    );
  const previous =
    options.previous ??
    (env[CREDENTIAL_PREVIOUS_KEYS_ENV] ?? '')
      .split(',')
      .map((item) => item.trim())
      .filter((item) => item !== '');
  const current = sealingKey(given, `${CREDENTIAL_KEY_ENV} (or credentialKey)`);
  const retired = previous.map((item, index) =>
    sealingKey(item, `Retired credential key #${index + 1}`),
  );
  return { current, all: [current, ...retired] };
}

/**
 * Seals `plaintext` for one place: `context` (the account, user and credential it belongs to) is
 * authenticated with it, so a sealed value moved to another account's row does not open.
 */
export function seal(keys: CredentialKeys, plaintext: string, context: string): SealedValue {
  const nonce = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', keys.current.key, nonce);
  cipher.setAAD(Buffer.from(context, 'utf8'));
  const body = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
  return {
    keyId: keys.current.id,
    data: Buffer.concat([nonce, body, cipher.getAuthTag()]).toString('base64url'),
  };
}

/** Opens a sealed value for `context`; `undefined` when no key opens it or it was moved or changed. */
export function open(
  keys: CredentialKeys,
  sealed: SealedValue,
  context: string,
): string | undefined {
  const key = keys.all.find((candidate) => candidate.id === sealed.keyId);
  if (!key || typeof sealed.data !== 'string') return undefined;
  const bytes = Buffer.from(sealed.data, 'base64url');
  if (bytes.length < 12 + 16) return undefined;
  try {
    const decipher = createDecipheriv('aes-256-gcm', key.key, bytes.subarray(0, 12));
    decipher.setAAD(Buffer.from(context, 'utf8'));
    decipher.setAuthTag(bytes.subarray(bytes.length - 16));
    return Buffer.concat([
      decipher.update(bytes.subarray(12, bytes.length - 16)),
      decipher.final(),
    ]).toString('utf8');
  } catch {
    return undefined;
  }
}
