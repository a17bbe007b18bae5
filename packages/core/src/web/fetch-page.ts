import { isIP } from 'node:net';
import type { Dispatcher } from 'undici';
import type { GatewayErrorType } from '../gateway/tool-error-types.js';
import { modelSafeErrorMessage } from '../util/sanitize-message.js';
import { readCappedBody, UnsupportedEncodingError } from './capped-body.js';
import { type ContentKind, contentKindOf, mediaTypeOf, sniffContentKind } from './content-kind.js';
import type { WebErrorType } from './error-types.js';
import { webFailure } from './failure.js';
import { createPinnedAgent } from './pinned-agent.js';
import type { ResolvedAddress, WebResolver } from './resolver.js';
import { checkAddresses, checkHostName, type WebSsrfPolicy } from './ssrf-policy.js';
import { loadUndici } from './undici.js';

/** Limits of one fetch. */
export interface FetchPageLimits {
  /** Largest body read, in bytes (after decompression); the rest is cut. */
  readonly maxBytes: number;
  /** Wall-clock limit of the whole fetch, redirects included. */
  readonly timeoutMs: number;
  /** Redirects followed before `too_many_redirects`. */
  readonly maxRedirects: number;
}

/** What a fetch needs besides the URL. */
export interface FetchPageDeps {
  readonly resolver: WebResolver;
  readonly policy: WebSsrfPolicy;
  /** The dispatcher for one request pinned to checked addresses. @default a pinned undici Agent */
  readonly dispatcherFor?: (addresses: readonly ResolvedAddress[]) => Dispatcher;
  /** Request headers (a user agent, say). */
  readonly headers?: Readonly<Record<string, string>>;
}

/** A fetched body. */
export interface FetchedPage {
  readonly ok: true;
  readonly url: string;
  readonly finalUrl: string;
  readonly status: number;
  readonly contentType: string;
  readonly kind: ContentKind;
  readonly body: Buffer;
  /** The body went on past `maxBytes` and was cut there. */
  readonly bodyTruncated: boolean;
  readonly redirects: readonly string[];
}

/** A fetch that failed, as the model sees it. */
export interface FetchFailure {
  readonly ok: false;
  readonly error_type: string;
  readonly error_message: string;
  readonly url: string;
  readonly final_url?: string;
  readonly status_code?: number;
  readonly content_type?: string;
}

const REDIRECTS = new Set([301, 302, 303, 307, 308]);

const DEFAULT_HEADERS = {
  'user-agent': 'KsADK-web_fetch/1 (+https://github.com/ksadk/ksadk-ts)',
  accept:
    'text/html,application/xhtml+xml,text/markdown,text/plain;q=0.9,application/json;q=0.9,application/xml;q=0.8,text/*;q=0.7',
  'accept-encoding': 'gzip, deflate, br',
};

class FetchStop extends Error {
  constructor(
    readonly errorType: WebErrorType | GatewayErrorType,
    message: string,
    readonly extra: Record<string, unknown> = {},
  ) {
    super(message);
  }
}

/** Drops a body unread (undici reports destroying an unread body as an error: nobody listens). */
function discard(body: {
  on(event: 'error', listener: () => void): unknown;
  destroy(): unknown;
}): void {
  body.on('error', () => undefined);
  body.destroy();
}

/** Closes a per-request dispatcher without waiting and without ever throwing. */
function release(dispatcher: Dispatcher): void {
  try {
    void dispatcher.destroy().catch(() => undefined);
  } catch {
    void dispatcher.close().catch(() => undefined);
  }
}

/** Parses and checks the form of a URL (scheme, host, no credentials). */
function parseTarget(raw: string, base?: URL): URL {
  let url: URL;
  try {
    url = base ? new URL(raw, base) : new URL(raw);
  } catch {
    throw new FetchStop('invalid_url', 'not a valid absolute URL');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw new FetchStop(
      'unsupported_scheme',
      `only http and https URLs are fetched (got ${url.protocol})`,
    );
  if (url.hostname === '') throw new FetchStop('invalid_url', 'the URL has no host');
  if (url.username !== '' || url.password !== '')
    throw new FetchStop('invalid_url', 'URLs with credentials are not fetched');
  url.hash = '';
  return url;
}

/** The URL's host as the connection uses it: normalised, without IPv6 brackets or a trailing dot. */
function hostOf(url: URL): string {
  const host = url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname;
  return host.replace(/\.$/, '').toLowerCase();
}

function abortable<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(
      (value) => {
        signal.removeEventListener('abort', onAbort);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(error);
      },
    );
  });
}

/** Resolves once and checks every address; IP literals are checked without DNS. */
async function checkedAddresses(
  host: string,
  deps: FetchPageDeps,
  signal: AbortSignal,
): Promise<ResolvedAddress[]> {
  const refusedName = checkHostName(host, deps.policy);
  if (refusedName) throw new FetchStop('blocked_by_ssrf_policy', refusedName.reason);
  const literal = isIP(host);
  let addresses: ResolvedAddress[];
  if (literal !== 0) addresses = [{ address: host, family: literal }];
  else {
    let answer: readonly ResolvedAddress[];
    try {
      answer = await abortable(deps.resolver(host), signal);
    } catch (error) {
      if (signal.aborted) throw error;
      throw new FetchStop(
        'dns_resolution_failed',
        `could not resolve ${host}: ${modelSafeErrorMessage(error)}`,
      );
    }
    addresses = Array.isArray(answer)
      ? answer.filter(
          (entry): entry is ResolvedAddress =>
            typeof entry === 'object' && entry !== null && typeof entry.address === 'string',
        )
      : [];
    if (addresses.length === 0)
      throw new FetchStop('dns_resolution_failed', `${host} has no addresses`);
    addresses = addresses.map((entry) => ({
      address: entry.address,
      family: isIP(entry.address) || entry.family,
    }));
  }
  const refused = checkAddresses(
    host,
    addresses.map((entry) => entry.address),
    deps.policy,
  );
  if (refused) throw new FetchStop('blocked_by_ssrf_policy', refused.reason);
  return addresses;
}

/**
 * Fetches a URL under the SSRF policy: for every hop (the first request and each redirect, at most
 * `maxRedirects`), the host is resolved once, every address checked, and the connection pinned to
 * the checked addresses. Only HTML, text, markdown, JSON and XML bodies are read, at most
 * `maxBytes` of them; the whole fetch stops at `timeoutMs`. No proxy variable is read.
 */
export async function fetchPage(
  rawUrl: string,
  deps: FetchPageDeps,
  limits: FetchPageLimits,
  callerSignal?: AbortSignal,
): Promise<FetchedPage | FetchFailure> {
  const timer = AbortSignal.timeout(limits.timeoutMs);
  const signal = callerSignal ? AbortSignal.any([callerSignal, timer]) : timer;
  const redirects: string[] = [];
  let current: URL | undefined;
  const timeouts = {
    connectMs: limits.timeoutMs,
    headersMs: limits.timeoutMs,
    bodyMs: limits.timeoutMs,
  };
  const undici = await loadUndici();
  const dispatcherFor =
    deps.dispatcherFor ?? ((addresses) => createPinnedAgent(addresses, timeouts, undici));
  try {
    current = parseTarget(rawUrl);
    for (let hop = 0; ; hop += 1) {
      const addresses = await checkedAddresses(hostOf(current), deps, signal);
      const dispatcher = dispatcherFor(addresses);
      try {
        const response = await undici.request(current, {
          dispatcher,
          method: 'GET',
          headers: { ...DEFAULT_HEADERS, ...deps.headers },
          signal,
        });
        const header = (name: string): string => {
          const value = response.headers[name];
          return (Array.isArray(value) ? value[0] : value) ?? '';
        };
        const location = header('location');
        if (REDIRECTS.has(response.statusCode) && location) {
          discard(response.body);
          if (hop >= limits.maxRedirects)
            throw new FetchStop(
              'too_many_redirects',
              `stopped after ${limits.maxRedirects} redirects`,
            );
          const next = parseTarget(location, current);
          redirects.push(next.href);
          current = next;
          continue;
        }
        const contentType = header('content-type');
        let kind = contentType ? contentKindOf(contentType) : undefined;
        if (contentType && !kind) {
          discard(response.body);
          throw new FetchStop(
            'unsupported_content_type',
            `web_fetch reads HTML, text, markdown, JSON and XML; this is ${mediaTypeOf(contentType).slice(0, 100)}`,
            { status_code: response.statusCode, content_type: contentType.slice(0, 200) },
          );
        }
        const read = await readCappedBody(
          response.body,
          header('content-encoding'),
          limits.maxBytes,
        );
        kind ??= sniffContentKind(read.bytes);
        if (!kind)
          throw new FetchStop(
            'unsupported_content_type',
            'the response has no content type and looks binary',
            { status_code: response.statusCode, content_type: '' },
          );
        return {
          ok: true,
          url: rawUrl,
          finalUrl: current.href,
          status: response.statusCode,
          contentType,
          kind,
          body: read.bytes,
          bodyTruncated: read.truncated,
          redirects,
        };
      } finally {
        release(dispatcher);
      }
    }
  } catch (error) {
    const finalUrl = current && current.href !== rawUrl ? { final_url: current.href } : {};
    if (error instanceof FetchStop)
      return webFailure(error.errorType, error.message, {
        url: rawUrl,
        ...finalUrl,
        ...error.extra,
      });
    if (timer.aborted)
      return webFailure(
        'tool_timeout',
        `web_fetch timed out after ${Math.round(limits.timeoutMs / 100) / 10} s`,
        { url: rawUrl, ...finalUrl },
      );
    if (error instanceof UnsupportedEncodingError)
      return webFailure('unsupported_content_type', error.message, { url: rawUrl, ...finalUrl });
    const code = (error as { code?: unknown }).code;
    return webFailure(
      'fetch_failed',
      `could not fetch the URL: ${modelSafeErrorMessage(error)}${typeof code === 'string' && !String((error as Error).message).includes(code) ? ` (${code})` : ''}`,
      { url: rawUrl, ...finalUrl },
    );
  }
}
