const SECRET_NAME = /(KEY|TOKEN|SECRET|PASSWORD|PASSWD|CREDENTIAL|AUTH)/i;
/** Environment values picked by name are redacted from this length on (shorter ones are flags, ports…). */
const MIN_ENV_SECRET_LENGTH = 8;
/** Registered credentials are redacted from this length on; shorter ones protect nothing. */
const MIN_SECRET_LENGTH = 4;
/** Registered credentials kept at most (a warning is emitted once past it). */
const MAX_SECRETS = 10_000;
const REDACTED = '[REDACTED]';
// `scheme://user:password@` — the password part of any URL.
const URL_PASSWORD = /\b([a-z][a-z0-9+.-]*:\/\/[^\s/?#@:]*):([^\s/?#@]+)@/gi;

const secrets = new Set<string>();
let pattern: RegExp | undefined;
let warned = false;

const escapeRegExp = (text: string): string => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/**
 * Registers a credential the library was given (an MCP `api_key` or header value, an A2A header,
 * a skill-service or sandbox token, a secret-looking variable of a gateway's `env`): from now on
 * it is replaced by `[REDACTED]` in every string that leaves a tool — results, errors, warnings
 * and thrown messages. Values shorter than 4 characters are ignored. The registry is
 * process-wide: redacting one tenant's key from another tenant's output only over-redacts.
 *
 * @example
 * ```ts
 * registerSecret(process.env.MY_SERVICE_TOKEN);
 * ```
 */
export function registerSecret(value: string | undefined | null): void {
  if (typeof value !== 'string' || value.length < MIN_SECRET_LENGTH || secrets.has(value)) return;
  if (secrets.size >= MAX_SECRETS) {
    if (!warned) {
      warned = true;
      process.emitWarning(
        `KsADK: more than ${MAX_SECRETS} credentials registered for redaction; later ones are not redacted.`,
      );
    }
    return;
  }
  secrets.add(value);
  pattern = undefined;
}

/**
 * Registers the values of the secret-looking variables (names with KEY, TOKEN, SECRET, PASSWORD,
 * CREDENTIAL or AUTH; values of 8 characters or more) of an environment.
 */
export function registerEnvSecrets(env: NodeJS.ProcessEnv): void {
  for (const value of secretValuesFromEnv(env)) registerSecret(value);
}

/** Values of environment variables whose names look secret (keys, tokens, passwords), longest first. */
export function secretValuesFromEnv(env: NodeJS.ProcessEnv = process.env): string[] {
  const values: string[] = [];
  for (const [name, value] of Object.entries(env)) {
    if (value && value.length >= MIN_ENV_SECRET_LENGTH && SECRET_NAME.test(name))
      values.push(value);
  }
  return values.sort((a, b) => b.length - a.length);
}

function registeredPattern(): RegExp | undefined {
  if (secrets.size === 0) return undefined;
  pattern ??= new RegExp(
    [...secrets]
      .sort((a, b) => b.length - a.length)
      .map(escapeRegExp)
      .join('|'),
    'g',
  );
  return pattern;
}

/**
 * Replaces every registered credential (and `extra` values) in `text` with `[REDACTED]`, and the
 * password of any URL (`postgres://user:secret@host` → `postgres://user:[REDACTED]@host`).
 *
 * @example
 * ```ts
 * redactSecrets('token=abcd1234', ['abcd1234']); // "token=[REDACTED]"
 * ```
 */
export function redactSecrets(text: string, extra: readonly string[] = []): string {
  let out = text;
  const registered = registeredPattern();
  if (registered) out = out.replace(registered, REDACTED);
  for (const secret of extra) {
    if (secret && out.includes(secret)) out = out.split(secret).join(REDACTED);
  }
  if (out.includes('://')) out = out.replace(URL_PASSWORD, `$1:${REDACTED}@`);
  return out;
}

/** True when redaction could change anything at all (some credential is registered). */
function mayRedact(text: string): boolean {
  return secrets.size > 0 || text.includes('://');
}

/**
 * Redacts every string inside a JSON-like value (object keys included), returning the same
 * value when nothing changed (copies are made only along changed paths). Error objects become
 * their redacted first line; anything nested deeper than 256 levels becomes `"[too deep]"`.
 */
export function redactDeep<T>(value: T): T {
  return redactNode(value, 0) as T;
}

const MAX_REDACT_DEPTH = 256;

/** Sets a member as data, even one named `__proto__`. */
function defineMember(target: Record<string, unknown>, key: string, value: unknown): void {
  Object.defineProperty(target, key, {
    value,
    enumerable: true,
    writable: true,
    configurable: true,
  });
}

function copyOwn(value: Record<string, unknown>, proto: object | null): Record<string, unknown> {
  const copy = Object.create(proto) as Record<string, unknown>;
  for (const key of Object.keys(value)) defineMember(copy, key, value[key]);
  return copy;
}

function redactNode(value: unknown, depth: number): unknown {
  if (typeof value === 'string') return mayRedact(value) ? redactSecrets(value) : value;
  if (typeof value !== 'object' || value === null) return value;
  if (depth > MAX_REDACT_DEPTH) return '[too deep]';
  if (value instanceof Error) {
    const message = typeof value.message === 'string' ? value.message : '';
    return redactSecrets(message.split(/\r?\n/, 1)[0] ?? '');
  }
  if (Array.isArray(value)) {
    let copy: unknown[] | undefined;
    for (let index = 0; index < value.length; index += 1) {
      const item = value[index];
      const next = redactNode(item, depth + 1);
      if (next !== item) {
        copy ??= value.slice();
        copy[index] = next;
      }
    }
    return copy ?? value;
  }
  const proto = Object.getPrototypeOf(value);
  if (proto !== Object.prototype && proto !== null) return value;
  let copy: Record<string, unknown> | undefined;
  for (const key of Object.keys(value)) {
    const item = (value as Record<string, unknown>)[key];
    const next = redactNode(item, depth + 1);
    const safeKey = mayRedact(key) ? redactSecrets(key) : key;
    if (next !== item || safeKey !== key) {
      copy ??= copyOwn(value as Record<string, unknown>, proto);
      if (safeKey !== key) delete copy[key];
      defineMember(copy, safeKey, next);
    }
  }
  return copy ?? value;
}
