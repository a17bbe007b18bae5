/** Thrown when a response body is larger than allowed. */
export class ResponseTooLargeError extends Error {
  constructor(readonly limit: number) {
    super(`response body larger than ${limit} bytes`);
    this.name = 'ResponseTooLargeError';
  }
}

/**
 * Wraps `fetch` so every response body is cut off (with {@link ResponseTooLargeError}) once it
 * passes `maxBytes` — a stream is counted as a whole — and `headers` are added to every request.
 */
export function limitedFetch(
  base: typeof fetch,
  maxBytes: number,
  headers: Record<string, string>,
): typeof fetch {
  return async (input, init) => {
    const merged = new Headers(init?.headers);
    for (const [name, value] of Object.entries(headers)) merged.set(name, value);
    const response = await base(input, { ...init, headers: merged });
    const declared = Number(response.headers.get('content-length') ?? '');
    if (declared > maxBytes) {
      await response.body?.cancel();
      throw new ResponseTooLargeError(maxBytes);
    }
    if (!response.body) return response;
    let seen = 0;
    const counted = response.body.pipeThrough(
      new TransformStream<Uint8Array, Uint8Array>({
        transform(chunk, controller) {
          seen += chunk.byteLength;
          if (seen > maxBytes) controller.error(new ResponseTooLargeError(maxBytes));
          else controller.enqueue(chunk);
        },
      }),
    );
    return new Response(counted, {
      status: response.status,
      statusText: response.statusText,
      headers: response.headers,
    });
  };
}
