import { connect } from 'node:net';

/** The Skill Service variables. */
export const SKILL_SERVICE_ENV = {
  url: 'KSADK_SKILL_SERVICE_URL',
  endpoint: 'KSADK_SKILL_SERVICE_ENDPOINT',
  scheme: 'KSADK_SKILL_SERVICE_SCHEME',
  endpointMode: 'KSADK_AICP_ENDPOINT_MODE',
  token: 'KSADK_SKILL_SERVICE_TOKEN',
  spaces: 'KSADK_SKILL_SPACE_IDS',
  space: 'SKILL_SPACE_ID',
  publicSpaces: 'KSADK_PUBLIC_SKILL_SPACE_IDS',
  publicAllowlist: 'KSADK_PUBLIC_SKILL_ALLOWLIST',
  manifestLimit: 'KSADK_SKILL_MANIFEST_LIMIT',
  manifestTimeout: 'KSADK_SKILL_MANIFEST_TIMEOUT',
} as const;

/** Comma lists → trimmed, non-empty, de-duplicated ids in order. */
export function parseIdList(...raw: (string | undefined)[]): string[] {
  const out: string[] = [];
  for (const value of raw)
    for (const part of (value ?? '').split(',')) {
      const id = part.trim();
      if (id && !out.includes(id)) out.push(id);
    }
  return out;
}

/** The configured skill spaces: user spaces (`KSADK_SKILL_SPACE_IDS`, else `SKILL_SPACE_ID`) and public ones. */
export interface SkillSpacesConfig {
  user: string[];
  public: string[];
  /** Public skill names allowed (lower-cased); empty = all. */
  publicAllowlist: string[];
}

/** Reads the configured spaces from the environment. */
export function skillSpacesFromEnv(env: NodeJS.ProcessEnv = process.env): SkillSpacesConfig {
  const user = parseIdList(env[SKILL_SERVICE_ENV.spaces]);
  const publicIds = parseIdList(env[SKILL_SERVICE_ENV.publicSpaces]);
  return {
    user: (user.length > 0 ? user : parseIdList(env[SKILL_SERVICE_ENV.space])).filter(
      (id) => !publicIds.includes(id),
    ),
    public: publicIds,
    publicAllowlist: parseIdList(env[SKILL_SERVICE_ENV.publicAllowlist]).map((name) =>
      name.toLowerCase(),
    ),
  };
}

const AICP_HOSTS = {
  internal: 'aicp.internal.api.ksyun.com',
  inner: 'aicp.inner.api.ksyun.com',
  public: 'aicp.api.ksyun.com',
} as const;

/** Whether `host:port` accepts a TCP connection within `timeoutMs`. */
export function probeTcp(host: string, port: number, timeoutMs = 1000): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host, port });
    const done = (ok: boolean): void => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(timeoutMs, () => done(false));
    socket.once('connect', () => done(true));
    socket.once('error', () => done(false));
  });
}

/**
 * The Skill Service base URL: `KSADK_SKILL_SERVICE_URL`; else `''` when no space is configured;
 * else the AICP endpoint (`KSADK_SKILL_SERVICE_ENDPOINT`, or by `KSADK_AICP_ENDPOINT_MODE`:
 * `internal`, `inner`, `public`, or `auto` — the first host accepting a TCP connection within
 * 1 s, else public) with `KSADK_SKILL_SERVICE_SCHEME` (default `http` for the internal and inner
 * hosts, `https` otherwise).
 */
export async function resolveSkillServiceUrl(
  env: NodeJS.ProcessEnv = process.env,
  options: { probe?: (host: string, port: number) => Promise<boolean> } = {},
): Promise<string> {
  const explicit = env[SKILL_SERVICE_ENV.url]?.trim();
  if (explicit) return explicit.replace(/\/+$/, '');
  const spaces = skillSpacesFromEnv(env);
  if (spaces.user.length === 0 && spaces.public.length === 0) return '';
  let endpoint = env[SKILL_SERVICE_ENV.endpoint]?.trim();
  if (!endpoint) {
    const mode = (env[SKILL_SERVICE_ENV.endpointMode]?.trim() || 'auto').toLowerCase();
    if (mode === 'internal' || mode === 'inner' || mode === 'public') endpoint = AICP_HOSTS[mode];
    else if (mode === 'auto' || mode === 'detect') {
      const probe = options.probe ?? ((host: string, port: number) => probeTcp(host, port));
      endpoint = AICP_HOSTS.public;
      for (const candidate of [AICP_HOSTS.internal, AICP_HOSTS.inner]) {
        const port = 80;
        if (await probe(candidate, port)) {
          endpoint = candidate;
          break;
        }
      }
    } else endpoint = AICP_HOSTS.public;
  }
  const scheme =
    env[SKILL_SERVICE_ENV.scheme]?.trim() ||
    (/\.(internal|inner)\.api\.ksyun\.com$/.test(endpoint) ? 'http' : 'https');
  return `${scheme}://${endpoint}`.replace(/\/+$/, '');
}
