import type { Dispatcher } from 'undici';
import { redactSecrets } from '../util/redact.js';
import { modelSafeErrorMessage } from '../util/sanitize-message.js';
import { readCappedBody } from './capped-body.js';
import { loadUndici } from './undici.js';

/** A provider call that failed, with the `error_type` the model sees. */
export class ProviderRequestError extends Error {
  constructor(
    readonly errorType: 'tool_timeout' | 'provider_error' | 'too_large',
    message: string,
  ) {
    super(message);
    this.name = 'ProviderRequestError';
  }
}

/** One JSON request to a configured search provider. */
export interface ProviderRequest {
  readonly url: URL;
  readonly method: 'GET' | 'POST';
  readonly headers: Record<string, string>;
  readonly body?: unknown;
  readonly dispatcher: Dispatcher;
  readonly timeoutMs: number;
  readonly maxBytes: number;
  /** Values never echoed in an error (the API key). */
  readonly secrets: readonly string[];
  readonly signal?: AbortSignal;
}

/**
 * Sends one request to a search provider's configured endpoint and parses its JSON answer: bounded
 * by a timeout and a byte cap, never through a proxy variable. Provider endpoints are configured by
 * the host, not chosen by the model, so they do not go through the SSRF policy.
 *
 * @throws {ProviderRequestError} `tool_timeout`, `too_large` or `provider_error` (HTTP error,
 * unreachable, not JSON); messages never hold the key or the response body.
 */
export async function requestProviderJson(options: ProviderRequest): Promise<unknown> {
  const timer = AbortSignal.timeout(options.timeoutMs);
  const signal = options.signal ? AbortSignal.any([options.signal, timer]) : timer;
  const where = options.url.host;
  try {
    const { request } = await loadUndici();
    const response = await request(options.url, {
      dispatcher: options.dispatcher,
      method: options.method,
      headers: {
        accept: 'application/json',
        'accept-encoding': 'gzip, deflate, br',
        ...(options.body === undefined ? {} : { 'content-type': 'application/json' }),
        ...options.headers,
      },
      ...(options.body === undefined ? {} : { body: JSON.stringify(options.body) }),
      signal,
    });
    const encoding = response.headers['content-encoding'];
    const read = await readCappedBody(
      response.body,
      typeof encoding === 'string' ? encoding : '',
      options.maxBytes,
    );
    if (response.statusCode >= 400)
      throw new ProviderRequestError(
        'provider_error',
        `the search provider (${where}) answered HTTP ${response.statusCode}`,
      );
    if (read.truncated)
      throw new ProviderRequestError(
        'too_large',
        `the search provider's answer is larger than ${options.maxBytes} bytes`,
      );
    try {
      return JSON.parse(read.bytes.toString('utf8'));
    } catch {
      throw new ProviderRequestError(
        'provider_error',
        `the search provider (${where}) did not answer with JSON`,
      );
    }
  } catch (error) {
    if (error instanceof ProviderRequestError) throw error;
    if (timer.aborted)
      throw new ProviderRequestError(
        'tool_timeout',
        `web_search timed out after ${Math.round(options.timeoutMs / 100) / 10} s`,
      );
    throw new ProviderRequestError(
      'provider_error',
      `could not reach the search provider (${where}): ${redactSecrets(modelSafeErrorMessage(error), options.secrets)}`,
    );
  }
}
