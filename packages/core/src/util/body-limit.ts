/**
 * The one kit for reading a response body under a byte cap — Skill Service replies and archives,
 * web pages and search answers, remote agents' replies. Whatever the body's size, at most the cap
 * is kept, reading stops at the cap (the rest is never pulled off the network), and a declared
 * `Content-Length` over the cap is refused before any byte is read.
 */

/** Thrown when a body is larger than its cap (where a cut body is no use). */
export class BodyTooLargeError extends Error {
  constructor(readonly limit: number) {
    super(`response body larger than ${limit} bytes`);
    this.name = 'BodyTooLargeError';
  }
}

/** Wraps an error the body's stream raised while it was read (a reset, a timeout). */
export class BodyReadError extends Error {
  constructor(cause: unknown) {
    super('the response body broke off', { cause });
    this.name = 'BodyReadError';
  }
}

/** A body: a WHATWG stream (`fetch`) or any async iterable of bytes (a Node stream). */
export type BodySource = ReadableStream<Uint8Array> | AsyncIterable<Uint8Array>;

/** The `Content-Length` a response declares, when it is a plain decimal number. */
export function declaredLength(headers: { get(name: string): string | null }): number | undefined {
  const value = headers.get('content-length')?.trim();
  return value && /^\d{1,16}$/.test(value) ? Number(value) : undefined;
}

/** Whether a response declares more than `maxBytes` (then nothing should be read). */
export function declaresMoreThan(
  headers: { get(name: string): string | null },
  maxBytes: number,
): boolean {
  const declared = declaredLength(headers);
  return declared !== undefined && declared > maxBytes;
}

async function* chunksOf(body: BodySource): AsyncGenerator<Uint8Array> {
  if (!('getReader' in body)) {
    yield* body;
    return;
  }
  const reader = body.getReader();
  let done = false;
  try {
    for (;;) {
      const next = await reader.read();
      if (next.done) {
        done = true;
        return;
      }
      yield next.value;
    }
  } finally {
    if (!done) await reader.cancel().catch(() => undefined);
  }
}

/**
 * Hands `take` the body's bytes, at most `maxBytes` of them (the chunk that crosses the cap is
 * cut there), then stops reading and cancels the rest. Errors of the stream itself come as
 * {@link BodyReadError}; errors of `take` pass through as they are.
 */
export async function consumeBodyAtMost(
  body: BodySource,
  maxBytes: number,
  take: (chunk: Uint8Array) => void | Promise<void>,
): Promise<{ readonly bytes: number; readonly truncated: boolean }> {
  const source = chunksOf(body);
  let bytes = 0;
  try {
    for (;;) {
      let next: IteratorResult<Uint8Array>;
      try {
        next = await source.next();
      } catch (error) {
        throw new BodyReadError(error);
      }
      if (next.done) return { bytes, truncated: false };
      const chunk = next.value;
      const room = maxBytes - bytes;
      if (chunk.byteLength > room) {
        if (room > 0) await take(chunk.subarray(0, room));
        return { bytes: maxBytes, truncated: true };
      }
      bytes += chunk.byteLength;
      if (chunk.byteLength > 0) await take(chunk);
    }
  } finally {
    await source.return(undefined).catch(() => undefined);
  }
}

/** The body's first `maxBytes` bytes, and whether more followed (then it was not read further). */
export async function readBodyAtMost(
  body: BodySource,
  maxBytes: number,
): Promise<{ readonly bytes: Buffer; readonly truncated: boolean }> {
  const chunks: Uint8Array[] = [];
  const { bytes, truncated } = await consumeBodyAtMost(body, maxBytes, (chunk) => {
    chunks.push(chunk);
  });
  return { bytes: Buffer.concat(chunks, bytes), truncated };
}

/**
 * A stream that passes the body's bytes on and fails with {@link BodyTooLargeError} once more
 * than `maxBytes` went through — for a body someone else reads as a stream (an SSE reply).
 */
export function capBodyStream(
  body: ReadableStream<Uint8Array>,
  maxBytes: number,
): ReadableStream<Uint8Array> {
  let seen = 0;
  return body.pipeThrough(
    new TransformStream<Uint8Array, Uint8Array>({
      transform(chunk, controller) {
        seen += chunk.byteLength;
        if (seen > maxBytes) controller.error(new BodyTooLargeError(maxBytes));
        else controller.enqueue(chunk);
      },
    }),
  );
}
