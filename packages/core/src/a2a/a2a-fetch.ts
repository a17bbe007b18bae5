import { BodyTooLargeError, capBodyStream, declaresMoreThan } from '../util/body-limit.js';

/**
 * Wraps `fetch` for the A2A client: every response body is cut off (with {@link BodyTooLargeError})
 * once it passes `maxBytes` — a stream is counted as a whole — and `headers` are added to every
 * request.
 */
export function a2aFetch(
  base: typeof fetch,
  maxBytes: number,
  headers: Record<string, string>,
): typeof fetch {
  return async (input, init) => {
    const merged = new Headers(init?.headers);
    for (const [name, value] of Object.entries(headers)) merged.set(name, value);
    const response = await base(input, { ...init, headers: merged });
    if (declaresMoreThan(response.headers, maxBytes)) {
      await response.body?.cancel().catch(() => undefined);
      throw new BodyTooLargeError(maxBytes);
    }
    if (!response.body) return response;
    return new Response(capBodyStream(response.body, maxBytes), {
      status: response.status,
      statusText: response.statusText,
      headers: response.headers,
    });
  };
}
