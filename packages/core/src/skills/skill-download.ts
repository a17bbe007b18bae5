import { createHash } from 'node:crypto';
import { open } from 'node:fs/promises';
import { BodyReadError, consumeBodyAtMost, declaresMoreThan } from '../util/body-limit.js';
import { SkillServiceError } from './skill-service-error.js';

/** How a skill archive is downloaded. */
export interface DownloadSettings {
  fetch: typeof fetch;
  /** Largest archive read, in bytes. */
  maxBytes: number;
  timeoutMs: number;
}

/**
 * Streams the archive at `url` (no credentials, a byte cap, a time limit) into a new file
 * `target`, owner-only; returns its SHA-256 (hex).
 *
 * @throws {SkillServiceError} `download_failed`, `download_timeout` or `too_large`.
 */
export async function downloadArchive(
  { fetch: fetchImpl, maxBytes, timeoutMs }: DownloadSettings,
  url: string,
  target: string,
): Promise<string> {
  let response: Response;
  try {
    response = await fetchImpl(url, {
      method: 'GET',
      redirect: 'follow',
      signal: AbortSignal.timeout(timeoutMs),
    });
  } catch (error) {
    const timedOut = (error as Error).name === 'TimeoutError';
    throw new SkillServiceError(
      timedOut ? 'download_timeout' : 'download_failed',
      timedOut
        ? `the skill download timed out after ${timeoutMs} ms`
        : 'the skill archive could not be downloaded',
    );
  }
  if (!response.ok || !response.body) {
    await response.body?.cancel().catch(() => undefined);
    throw new SkillServiceError(
      'download_failed',
      `the skill download answered HTTP ${response.status}`,
    );
  }
  const tooLarge = () =>
    new SkillServiceError('too_large', `the skill archive is larger than ${maxBytes} bytes`);
  if (declaresMoreThan(response.headers, maxBytes)) {
    await response.body.cancel().catch(() => undefined);
    throw tooLarge();
  }
  const hash = createHash('sha256');
  const handle = await open(target, 'wx', 0o600);
  try {
    const { truncated } = await consumeBodyAtMost(response.body, maxBytes, async (chunk) => {
      hash.update(chunk);
      await handle.write(chunk);
    }).catch((error: unknown) => {
      if (!(error instanceof BodyReadError)) throw error;
      const timedOut = (error.cause as Error | undefined)?.name === 'TimeoutError';
      throw new SkillServiceError(
        timedOut ? 'download_timeout' : 'download_failed',
        timedOut
          ? `the skill download timed out after ${timeoutMs} ms`
          : 'the skill download broke off',
      );
    });
    if (truncated) throw tooLarge();
  } finally {
    await handle.close();
  }
  return hash.digest('hex');
}
