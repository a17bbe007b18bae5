const SECRET_NAME = /(KEY|TOKEN|SECRET|PASSWORD|PASSWD|CREDENTIAL|AUTH)/i;
/** Environment values picked by name are redacted from this length on (shorter ones are flags, ports…). */
const MIN_ENV_SECRET_LENGTH = 8;
/** Registered credentials are redacted from this length on; shorter ones protect nothing. */
const MIN_SECRET_LENGTH = 4;
/** Registered credentials kept at most; past it the oldest registration is forgotten. */
const MAX_SECRETS = 100_000;
const REDACTED = '[REDACTED]';
// `scheme://user:password@host` — the password runs to the last `@` of the URL-like token, so a
// password holding `@`, `/` or `?` is covered whole (over-redacting an odd URL is the safe side).
const URL_PASSWORD = /\b([a-z][a-z0-9+.-]*:\/\/[^\s:/@'"`<>]*):([^\s'"`<>]+)@/gi;
// `Authorization`-style values: the credential after the scheme is a secret on its own.
const AUTH_SCHEME = /^(?:bearer|basic|token|bot|apikey|api-key)\s+(\S+)$/i;

/** Registered secrets by their first four characters, longest first within a bucket. */
const byPrefix = new Map<string, string[]>();
/** First two code units of every prefix, as one number: a cheap filter before any slicing. */
const firstPairs = new Map<number, number>();
const registered = new Set<string>();
/** Registered secrets written only in base64's alphabet: the ones that can occur in base64 data. */
const base64Shaped = new Set<string>();
const BASE64_SHAPED = /^[A-Za-z0-9+/=]+$/;
const pairOf = (text: string, index: number): number =>
  text.charCodeAt(index) * 65536 + text.charCodeAt(index + 1);

/**
 * Registers a credential the library was given (an MCP `api_key` or header value, an A2A header,
 * a skill-service or sandbox token, a secret-looking variable of a gateway's `env`): from now on
 * it is replaced by `[REDACTED]` in every string that leaves a tool — results, persisted outputs,
 * errors, warnings and thrown messages. A value like `Bearer <token>` registers the token on its
 * own too. Values shorter than 4 characters are ignored. The registry is process-wide (redacting
 * one tenant's key from another's output only over-redacts) and keeps the newest 100,000.
 *
 * @example
 * ```ts
 * registerSecret(process.env.MY_SERVICE_TOKEN);
 * ```
 */
export function registerSecret(value: string | undefined | null): void {
  if (typeof value !== 'string') return;
  const scheme = AUTH_SCHEME.exec(value.trim());
  if (scheme) add(scheme[1]!);
  add(value);
}

function add(value: string): void {
  if (value.length < MIN_SECRET_LENGTH || registered.has(value)) return;
  if (registered.size >= MAX_SECRETS) {
    const oldest = registered.values().next().value as string;
    registered.delete(oldest);
    base64Shaped.delete(oldest);
    const bucket = byPrefix.get(oldest.slice(0, MIN_SECRET_LENGTH));
    bucket?.splice(bucket.indexOf(oldest), 1);
    const pair = pairOf(oldest, 0);
    const count = (firstPairs.get(pair) ?? 1) - 1;
    if (count === 0) firstPairs.delete(pair);
    else firstPairs.set(pair, count);
  }
  registered.add(value);
  if (BASE64_SHAPED.test(value)) base64Shaped.add(value);
  const key = value.slice(0, MIN_SECRET_LENGTH);
  const bucket = byPrefix.get(key) ?? [];
  bucket.push(value);
  bucket.sort((a, b) => b.length - a.length);
  byPrefix.set(key, bucket);
  const pair = pairOf(value, 0);
  firstPairs.set(pair, (firstPairs.get(pair) ?? 0) + 1);
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

/**
 * Replaces every occurrence of the registered secrets in `text`. All occurrences are found first
 * (the longest secret at each position) and overlapping ones merged, so two overlapping secrets
 * leave nothing of either behind.
 */
function redactRegistered(text: string): string {
  if (byPrefix.size === 0 || text.length < MIN_SECRET_LENGTH) return text;
  let spans: [number, number][] | undefined;
  for (let index = 0; index <= text.length - MIN_SECRET_LENGTH; index += 1) {
    const found = registeredAt(text, index);
    if (!found) continue;
    const end = index + found.length;
    spans ??= [];
    const last = spans[spans.length - 1];
    if (last && index <= last[1]) last[1] = Math.max(last[1], end);
    else spans.push([index, end]);
  }
  if (!spans) return text;
  let out = '';
  let at = 0;
  for (const [start, end] of spans) {
    out += `${text.slice(at, start)}${REDACTED}`;
    at = end;
  }
  return out + text.slice(at);
}

/** The longest registered secret that starts at `index` of `text`, if any. */
function registeredAt(text: string, index: number): string | undefined {
  if (!firstPairs.has(pairOf(text, index))) return undefined;
  const bucket = byPrefix.get(text.slice(index, index + MIN_SECRET_LENGTH));
  return bucket?.find((secret) => text.startsWith(secret, index));
}

/** Whether `text` holds any registered secret: stops at the first one. */
function holdsRegistered(text: string): boolean {
  for (let index = 0; index <= text.length - MIN_SECRET_LENGTH; index += 1) {
    if (registeredAt(text, index)) return true;
  }
  return false;
}

/** Up to this many registered secrets, media is searched one secret at a time (native search). */
const MAX_DIRECT_SEARCHES = 256;

/**
 * Whether media holds a registered credential: written in its base64 text (only a credential in
 * base64's own alphabet can be — a hex token, an AWS secret key) or in the bytes it decodes to (an
 * image's metadata, say). Media is never rewritten — that would only corrupt it — so a part that
 * holds one is withheld instead.
 */
export function mediaHoldsSecret(base64: string, bytes: Buffer): boolean {
  if (registered.size === 0) return false;
  if (registered.size > MAX_DIRECT_SEARCHES) {
    // Too many to search one by one: one pass over each reading, through the prefix index.
    return (
      holdsRegistered(base64) ||
      holdsRegistered(bytes.toString('latin1')) ||
      holdsRegistered(bytes.toString('utf8'))
    );
  }
  for (const secret of base64Shaped) if (base64.includes(secret)) return true;
  for (const secret of registered) if (bytes.includes(secret)) return true;
  return false;
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
  let out = redactRegistered(text);
  for (const secret of extra) {
    if (secret && out.includes(secret)) out = out.split(secret).join(REDACTED);
  }
  if (out.includes('://')) out = out.replace(URL_PASSWORD, `$1:${REDACTED}@`);
  return out;
}

/** True when redaction could change `text` at all. */
function mayRedact(text: string): boolean {
  return byPrefix.size > 0 || text.includes('://');
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

/**
 * Redacts every string inside plain JSON data (object keys included), returning the same value
 * when nothing changed (copies are made only along changed paths). Anything nested deeper than
 * 256 levels becomes `"[too deep]"`. Give it plain data (see `toPlainJson`): other objects are
 * returned as they are.
 */
export function redactDeep<T>(value: T): T {
  return redactNode(value, 0) as T;
}

function redactNode(value: unknown, depth: number): unknown {
  if (typeof value === 'string') return mayRedact(value) ? redactSecrets(value) : value;
  if (typeof value !== 'object' || value === null) return value;
  if (depth > MAX_REDACT_DEPTH) return '[too deep]';
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
  let copy: Record<string, unknown> | undefined;
  for (const key of Object.keys(value)) {
    const item = (value as Record<string, unknown>)[key];
    const next = redactNode(item, depth + 1);
    const safeKey = mayRedact(key) ? redactSecrets(key) : key;
    if (next !== item || safeKey !== key) {
      if (!copy) {
        copy = Object.create(Object.getPrototypeOf(value)) as Record<string, unknown>;
        for (const own of Object.keys(value))
          defineMember(copy, own, (value as Record<string, unknown>)[own]);
      }
      if (safeKey !== key) delete copy[key];
      defineMember(copy, safeKey, next);
    }
  }
  return copy ?? value;
}
