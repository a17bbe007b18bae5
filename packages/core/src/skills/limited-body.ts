import { declaresMoreThan, readBodyAtMost } from '../util/body-limit.js';
import { SkillServiceError } from './skill-service-error.js';

/** Reads a response body as text, refusing (and cancelling) one larger than `maxBytes`. */
export async function readLimitedBody(
  response: Response,
  maxBytes: number,
  what: string,
): Promise<string> {
  const tooLarge = () =>
    new SkillServiceError('too_large', `${what} is larger than ${maxBytes} bytes`);
  if (declaresMoreThan(response.headers, maxBytes)) {
    await response.body?.cancel().catch(() => undefined);
    throw tooLarge();
  }
  if (!response.body) return '';
  const { bytes, truncated } = await readBodyAtMost(response.body, maxBytes);
  if (truncated) throw tooLarge();
  return bytes.toString('utf8');
}
