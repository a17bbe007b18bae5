import type { ServiceClientSettings } from './service-call.js';
import {
  pick,
  responseData,
  type SkillRef,
  type SkillSpace,
  skillRefsFromResponse,
  skillSpacesFromResponse,
  totalCountOf,
} from './skill-ref.js';
import { SkillServiceError } from './skill-service-error.js';

/** One call of the service; the signing and the HTTP client load with the first one. */
async function callService(
  settings: ServiceClientSettings,
  action: string,
  params: Record<string, string | number>,
): ReturnType<typeof import('./service-call.js').callSkillService> {
  const { callSkillService } = await import('./service-call.js');
  return callSkillService(settings, action, params);
}

/** The three hosts that get KOP (SigV4-signed) requests, and only over https. */
export const KOP_HOSTS: readonly string[] = [
  'aicp.inner.api.ksyun.com',
  'aicp.internal.api.ksyun.com',
  'aicp.api.ksyun.com',
];

/** Options for {@link createSkillServiceClient}. */
export interface SkillServiceClientOptions {
  /** Base URL (normalised: query, fragment, `/openapi.json` dropped; `/docs` → `/api/v1`). */
  baseUrl: string;
  token?: string;
  accessKey?: string;
  secretKey?: string;
  accountId?: string;
  /** Logical region. @default cn-beijing-6 */
  region?: string;
  /** For the `pre-online` region: the control region and custom source. */
  preControlRegion?: string;
  preCustomSource?: string;
  apiVersion?: string;
  signService?: string;
  /** Per request. @default 10_000 */
  timeoutMs?: number;
  /** Largest JSON response read. @default 8 MiB */
  maxResponseBytes?: number;
  /** Most pages read per listing. @default 100 */
  maxPages?: number;
  fetch?: typeof fetch;
}

/** The Skill Service calls the skill tools and the runtime make. */
export interface SkillServiceClient {
  readonly baseUrl: string;
  /** Whether requests are KOP (SigV4-signed) rather than direct REST. */
  readonly kop: boolean;
  listSpaces(): Promise<SkillSpace[]>;
  /** Every skill of a space, all pages. */
  listSkills(spaceId: string): Promise<SkillRef[]>;
  /** The premade (public) skills. */
  listPublicSkills(): Promise<{ spaceId: string; spaceName: string; skills: SkillRef[] }>;
  /** A download URL for one skill version. */
  downloadUrl(ref: SkillRef): Promise<string>;
}

/** Normalises a Skill Service base URL the way users paste it (docs or OpenAPI links). */
export function normalizeSkillServiceUrl(raw: string): string {
  let url: URL;
  try {
    url = new URL(raw.trim());
  } catch {
    throw new SkillServiceError('invalid_config', 'the Skill Service URL is not a valid URL');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw new SkillServiceError('invalid_config', 'the Skill Service URL must be http or https');
  url.search = '';
  url.hash = '';
  url.username = '';
  url.password = '';
  let pathname = url.pathname.replace(/\/+$/, '');
  pathname = pathname.replace(/\/openapi\.json$/, '');
  if (pathname.endsWith('/docs')) pathname = `${pathname.slice(0, -'/docs'.length)}/api/v1`;
  return `${url.origin}${pathname}`;
}

const PAGE_SIZE = 100;

/** Pages until the reported total (else a short page), an empty or repeated page, or `maxPages`. */
async function paginate<T>(
  settings: ServiceClientSettings,
  action: string,
  params: Record<string, string>,
  pageSize: number,
  read: (payload: Record<string, unknown>) => T[],
  keyOf: (item: T) => string,
): Promise<T[]> {
  const out: T[] = [];
  const seen = new Set<string>();
  for (let page = 1; page <= settings.maxPages; page += 1) {
    const payload = await callService(settings, action, {
      ...params,
      PageNumber: page,
      PageSize: pageSize,
    });
    const items = read(payload);
    let added = 0;
    for (const item of items) {
      const key = keyOf(item);
      if (seen.has(key)) continue;
      seen.add(key);
      out.push(item);
      added += 1;
    }
    const total = totalCountOf(payload);
    // A server may cap the page size below the one asked for: the total decides when it says one.
    const finished = total !== undefined ? out.length >= total : items.length < pageSize;
    if (items.length === 0 || added === 0 || finished) break;
  }
  return out;
}

/**
 * A client for the Skill Service: KOP mode (SigV4-signed, `?Action=…`) only for https on the
 * three exact AICP hosts; direct REST (`<base>/<Action>?…`, bearer token) for everything else —
 * a look-alike host or plain http never gets signing headers. Listings read every page.
 *
 * @example
 * ```ts
 * const client = createSkillServiceClient({ baseUrl: 'http://127.0.0.1:8080/api/v1', token });
 * const skills = await client.listSkills('space-1');
 * ```
 */
export function createSkillServiceClient(options: SkillServiceClientOptions): SkillServiceClient {
  const baseUrl = normalizeSkillServiceUrl(options.baseUrl);
  const parsed = new URL(baseUrl);
  const logicalRegion = options.region?.trim() || 'cn-beijing-6';
  const preOnline = logicalRegion === 'pre-online';
  const settings: ServiceClientSettings = {
    options,
    baseUrl,
    parsed,
    kop: parsed.protocol === 'https:' && KOP_HOSTS.includes(parsed.hostname),
    fetch: options.fetch ?? fetch,
    timeoutMs: options.timeoutMs ?? 10_000,
    maxBytes: options.maxResponseBytes ?? 8 * 1024 * 1024,
    maxPages: options.maxPages ?? 100,
    region: preOnline ? options.preControlRegion?.trim() || 'cn-beijing-6' : logicalRegion,
    preOnline,
    apiVersion: options.apiVersion?.trim() || '2024-06-12',
    signService: options.signService?.trim() || 'aicp',
  };
  const call = (action: string, params: Record<string, string | number>) =>
    callService(settings, action, params);

  return {
    baseUrl,
    kop: settings.kop,
    listSpaces: () =>
      paginate(
        settings,
        'ListSkillSpaces',
        {},
        20,
        skillSpacesFromResponse,
        (space) => space.space_id,
      ),
    listSkills: (spaceId) =>
      paginate(
        settings,
        'ListSkillsBySpaceId',
        { SpaceId: spaceId },
        PAGE_SIZE,
        (payload) => skillRefsFromResponse(payload, spaceId),
        (ref) => `${ref.skillId}|${ref.name}|${ref.versionId}`,
      ),
    async listPublicSkills() {
      const payload = await call('ListAvailablePremadeSkills', {});
      const data = responseData(payload);
      const spaceId = String(pick(data, 'SkillSpaceId', 'skill_space_id') ?? '').trim() || 'public';
      const spaceName =
        String(pick(data, 'SkillSpaceName', 'skill_space_name') ?? '').trim() || 'Public Skills';
      return { spaceId, spaceName, skills: skillRefsFromResponse(payload, spaceId) };
    },
    async downloadUrl(ref) {
      const payload = ref.versionId
        ? await call('GetSkillDownloadUrl', { SkillId: ref.skillId, VersionId: ref.versionId })
        : await call('GetPremadeSkillDownloadUrl', {
            ...(ref.skillId ? { SkillId: ref.skillId } : {}),
            ...(ref.name ? { Name: ref.name } : {}),
          });
      const url = pick(responseData(payload), 'DownloadUrl', 'download_url');
      if (typeof url !== 'string' || !url.trim())
        throw new SkillServiceError(
          'skill_service_error',
          `Skill Service gave no download URL for ${ref.name}`,
        );
      return url.trim();
    },
  };
}

/** Reads the client options from the environment (token, AK/SK with `KSYUN_*`/`KS3_*` fallbacks, region…). */
export function skillServiceClientOptionsFromEnv(
  baseUrl: string,
  env: NodeJS.ProcessEnv = process.env,
  timeoutMs?: number,
): SkillServiceClientOptions {
  const first = (...names: string[]): string | undefined => {
    for (const name of names) {
      const value = env[name]?.trim();
      if (value) return value;
    }
    return undefined;
  };
  const options: SkillServiceClientOptions = { baseUrl };
  const assign = <K extends keyof SkillServiceClientOptions>(
    key: K,
    value: SkillServiceClientOptions[K] | undefined,
  ): void => {
    if (value !== undefined) options[key] = value;
  };
  assign('token', first('KSADK_SKILL_SERVICE_TOKEN'));
  assign(
    'accessKey',
    first('KSADK_SKILL_SERVICE_ACCESS_KEY', 'KSYUN_ACCESS_KEY', 'KS3_ACCESS_KEY'),
  );
  assign(
    'secretKey',
    first('KSADK_SKILL_SERVICE_SECRET_KEY', 'KSYUN_SECRET_KEY', 'KS3_SECRET_KEY'),
  );
  assign('accountId', first('KSADK_SKILL_SERVICE_ACCOUNT_ID', 'KSYUN_ACCOUNT_ID'));
  assign('region', first('KSADK_SKILL_SERVICE_REGION', 'KSYUN_REGION'));
  assign('preControlRegion', first('AGENTENGINE_PRE_CONTROL_REGION'));
  assign('preCustomSource', first('AGENTENGINE_PRE_CUSTOM_SOURCE'));
  assign('apiVersion', first('KSADK_SKILL_SERVICE_API_VERSION'));
  assign('signService', first('KSADK_SKILL_SERVICE_SIGN_SERVICE'));
  assign('timeoutMs', timeoutMs);
  return options;
}
