/** Headers every answer carries: no sniffing, no framing, no referrer, nothing cached. */
const COMMON_HEADERS: Readonly<Record<string, string>> = {
  'x-content-type-options': 'nosniff',
  'x-frame-options': 'DENY',
  'referrer-policy': 'no-referrer',
  'cross-origin-opener-policy': 'same-origin',
  'cross-origin-resource-policy': 'same-origin',
  'cache-control': 'no-store',
};

/**
 * The page's content security policy: its own script and stylesheet only (no inline code, no
 * `eval`), its own API, images and audio from its own result handles, no frames, no forms
 * elsewhere, no `<base>`.
 */
export const CONTENT_SECURITY_POLICY = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' blob:",
  "media-src 'self' blob:",
  "connect-src 'self'",
  "font-src 'none'",
  "object-src 'none'",
  "frame-ancestors 'none'",
  "base-uri 'none'",
  "form-action 'self'",
].join('; ');

/** Headers for an answer of this content type, with the security headers. */
export function headersFor(contentType: string, extra: Record<string, string> = {}): Headers {
  return new Headers({
    ...COMMON_HEADERS,
    'content-security-policy': CONTENT_SECURITY_POLICY,
    'content-type': contentType,
    ...extra,
  });
}

/** A JSON answer. */
export function json(body: unknown, status = 200, extra: Record<string, string> = {}): Response {
  return new Response(JSON.stringify(body), {
    status,
    headers: headersFor('application/json; charset=utf-8', extra),
  });
}

/** A JSON error answer: `{ error: { code, message } }`. */
export function failure(status: number, code: string, message: string): Response {
  return json({ error: { code, message } }, status);
}

/** Why a request body could not be read. */
export class BodyError extends Error {
  constructor(
    readonly status: 400 | 413 | 415,
    message: string,
  ) {
    super(message);
  }
}

/** Deepest nesting a body may have (the gateway's own limit on model arguments). */
const MAX_BODY_DEPTH = 64;

/** Whether JSON text nests deeper than `max` (strings skipped): checked before parsing it. */
function nestsDeeper(bytes: Uint8Array, max: number): boolean {
  let depth = 0;
  let inString = false;
  for (let index = 0; index < bytes.length; index += 1) {
    const byte = bytes[index]!;
    if (inString) {
      if (byte === 0x5c)
        index += 1; // a backslash: the next byte is escaped
      else if (byte === 0x22) inString = false;
    } else if (byte === 0x22) inString = true;
    else if (byte === 0x5b || byte === 0x7b) {
      depth += 1;
      if (depth > max) return true;
    } else if (byte === 0x5d || byte === 0x7d) depth -= 1;
  }
  return false;
}

/**
 * The request's JSON object body, at most `limit` bytes (read as a stream, so a body larger than
 * it declares stops being read at the limit), nesting at most 64 levels. An empty body is `{}`.
 *
 * @throws {BodyError} 413 over the limit, 415 for another content type, 400 for anything but a
 * JSON object.
 */
export async function jsonBody(request: Request, limit: number): Promise<Record<string, unknown>> {
  const declared = Number(request.headers.get('content-length') ?? '0');
  if (declared > limit) throw new BodyError(413, `The request body is over ${limit} bytes.`);
  const type = request.headers.get('content-type') ?? '';
  if (request.body && !/^application\/json\s*(;|$)/i.test(type))
    throw new BodyError(415, 'Send the body as application/json.');
  const chunks: Uint8Array[] = [];
  let size = 0;
  if (request.body) {
    const reader = request.body.getReader();
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      size += value.byteLength;
      if (size > limit) {
        await reader.cancel().catch(() => undefined);
        throw new BodyError(413, `The request body is over ${limit} bytes.`);
      }
      chunks.push(value);
    }
  }
  if (size === 0) return {};
  const bytes = Buffer.concat(chunks);
  // A deep body costs JSON.parse seconds on the one thread every tenant shares: refused unread.
  if (nestsDeeper(bytes, MAX_BODY_DEPTH))
    throw new BodyError(400, `The request body nests deeper than ${MAX_BODY_DEPTH} levels.`);
  let parsed: unknown;
  try {
    parsed = JSON.parse(bytes.toString('utf8'));
  } catch {
    throw new BodyError(400, 'The request body is not JSON.');
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed))
    throw new BodyError(400, 'The request body must be a JSON object.');
  return parsed as Record<string, unknown>;
}

/** A query parameter, trimmed, or `undefined` when absent or empty (at most `max` characters). */
export function queryParam(url: URL, name: string, max = 200): string | undefined {
  const value = url.searchParams.get(name)?.trim();
  return value ? value.slice(0, max) : undefined;
}
