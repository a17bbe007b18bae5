import { SkillServiceError } from './skill-service-error.js';

/** Reads a response body as text, refusing (and cancelling) one larger than `maxBytes`. */
export async function readLimitedBody(
  response: Response,
  maxBytes: number,
  what: string,
): Promise<string> {
  const declared = Number(response.headers.get('content-length'));
  if (Number.isFinite(declared) && declared > maxBytes) {
    await response.body?.cancel().catch(() => undefined);
    throw new SkillServiceError('response_too_large', `${what} is larger than ${maxBytes} bytes`);
  }
  if (!response.body) return '';
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.byteLength;
    if (total > maxBytes) {
      await reader.cancel().catch(() => undefined);
      throw new SkillServiceError('response_too_large', `${what} is larger than ${maxBytes} bytes`);
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks).toString('utf8');
}
