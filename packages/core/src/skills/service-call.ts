import { BodyReadError } from '../util/body-limit.js';
import { readLimitedBody } from './limited-body.js';
import { pick } from './skill-ref.js';
import { SkillServiceError } from './skill-service-error.js';

/** The client options a call reads, each time: credentials, account, pre-online source. */
export interface ServiceCallOptions {
  token?: string;
  accessKey?: string;
  secretKey?: string;
  accountId?: string;
  preCustomSource?: string;
}

/** What a Skill Service client was made with: its options and what it derived from them. */
export interface ServiceClientSettings {
  options: ServiceCallOptions;
  /** The normalised base URL, and parsed. */
  baseUrl: string;
  parsed: URL;
  /** KOP (SigV4-signed, `?Action=…`) rather than direct REST. */
  kop: boolean;
  fetch: typeof fetch;
  timeoutMs: number;
  /** Largest JSON response read. */
  maxBytes: number;
  /** Most pages read per listing. */
  maxPages: number;
  /** The signing region (the control region for `pre-online`). */
  region: string;
  preOnline: boolean;
  apiVersion: string;
  signService: string;
}

const OK_CODES = new Set([null, undefined, 0, 200, '0', '200']);

/** Signs a KOP request (`?Action=…&Version=…`, SigV4) into `headers`; returns its URL. */
async function signedKopUrl(
  settings: ServiceClientSettings,
  action: string,
  params: Record<string, string | number>,
  headers: Record<string, string>,
): Promise<string> {
  const { options, parsed, region, apiVersion } = settings;
  if (!options.accessKey || !options.secretKey)
    throw new SkillServiceError(
      'invalid_config',
      'KOP requests need KSADK_SKILL_SERVICE_ACCESS_KEY and KSADK_SKILL_SERVICE_SECRET_KEY (or KSYUN_ACCESS_KEY / KSYUN_SECRET_KEY)',
    );
  const query = new URLSearchParams();
  query.set('Action', action);
  query.set('Version', apiVersion);
  for (const [key, value] of Object.entries(params)) query.set(key, String(value));
  Object.assign(headers, {
    'x-ksc-region': region,
    'x-ksc-source': 'ksadk-skill-runtime',
    'x-action': action,
    'x-version': apiVersion,
  });
  if (settings.preOnline) headers['x-ksc-custom-source'] = options.preCustomSource?.trim() || 'pre';
  const { sign } = await import('aws4');
  const signed = sign(
    {
      host: parsed.host,
      path: `/?${query.toString()}`,
      method: 'GET',
      service: settings.signService,
      region,
      headers,
    },
    { accessKeyId: options.accessKey, secretAccessKey: options.secretKey },
  );
  for (const [key, value] of Object.entries(signed.headers ?? {}))
    headers[key.toLowerCase()] = String(value);
  return `${parsed.origin}/?${query.toString()}`;
}

/** The direct REST URL of an action: `<base>/<Action>?<params>`. */
function restUrl(baseUrl: string, action: string, params: Record<string, string | number>): string {
  const query = new URLSearchParams();
  for (const [key, value] of Object.entries(params)) query.set(key, String(value));
  const search = query.toString();
  return `${baseUrl}/${action}${search ? `?${search}` : ''}`;
}

/** The reply's JSON object when it says success; a `SkillServiceError` otherwise. */
async function replyBody(
  settings: ServiceClientSettings,
  action: string,
  response: Response,
): Promise<Record<string, unknown>> {
  let text: string;
  try {
    text = await readLimitedBody(response, settings.maxBytes, `Skill Service ${action} response`);
  } catch (error) {
    if (!(error instanceof BodyReadError)) throw error;
    const timedOut = (error.cause as Error | undefined)?.name === 'TimeoutError';
    throw new SkillServiceError(
      timedOut ? 'skill_service_timeout' : 'skill_service_unreachable',
      `Skill Service ${action} ${timedOut ? `timed out after ${settings.timeoutMs} ms` : 'broke off mid-reply'}`,
    );
  }
  let payload: unknown;
  try {
    payload = JSON.parse(text);
  } catch {
    throw new SkillServiceError(
      'skill_service_error',
      `Skill Service ${action} did not answer JSON (HTTP ${response.status})`,
    );
  }
  if (typeof payload !== 'object' || payload === null || Array.isArray(payload))
    throw new SkillServiceError(
      'skill_service_error',
      `Skill Service ${action} did not answer a JSON object`,
    );
  const body = payload as Record<string, unknown>;
  const code = pick(body, 'Code', 'code');
  if (!response.ok || !OK_CODES.has(code as never)) {
    const message = String(pick(body, 'Message', 'message') ?? '').slice(0, 300);
    const requestId = String(pick(body, 'RequestId', 'request_id') ?? '').slice(0, 100);
    throw new SkillServiceError(
      'skill_service_error',
      `Skill Service ${action} failed: code=${String(code ?? response.status).slice(0, 40)}, request_id=${requestId}, message=${message}`,
    );
  }
  return body;
}

/**
 * Calls one Skill Service action (KOP-signed or direct REST, as `settings.kop` says) and returns
 * its JSON object.
 *
 * @throws {SkillServiceError} `invalid_config`, `skill_service_timeout`,
 * `skill_service_unreachable` or `skill_service_error`.
 */
export async function callSkillService(
  settings: ServiceClientSettings,
  action: string,
  params: Record<string, string | number>,
): Promise<Record<string, unknown>> {
  const { options, timeoutMs, fetch: fetchImpl } = settings;
  const headers: Record<string, string> = {
    accept: 'application/json',
    'content-type': 'application/json',
  };
  if (options.token) headers['authorization'] = `Bearer ${options.token}`;
  if (options.accountId) headers['x-ksc-account-id'] = options.accountId;
  const url = settings.kop
    ? await signedKopUrl(settings, action, params, headers)
    : restUrl(settings.baseUrl, action, params);
  delete headers['host'];
  let response: Response;
  try {
    response = await fetchImpl(url, {
      method: 'GET',
      headers,
      redirect: 'error',
      signal: AbortSignal.timeout(timeoutMs),
    });
  } catch (error) {
    const name = (error as Error).name;
    throw new SkillServiceError(
      name === 'TimeoutError' ? 'skill_service_timeout' : 'skill_service_unreachable',
      `Skill Service ${action} ${name === 'TimeoutError' ? `timed out after ${timeoutMs} ms` : 'could not be reached'}`,
    );
  }
  return replyBody(settings, action, response);
}
