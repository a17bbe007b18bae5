import { KsadkError } from '../errors/ksadk-error.js';
import { wholeNumberFromEnv } from '../util/env.js';
import type { KsadkVariable } from '../util/variables.js';
import { parseSsrfPolicyJson, type WebSsrfPolicy } from './ssrf-policy.js';

/** The environment variables of the web tools. */
export const WEB_ENV = {
  ssrfPolicy: 'KSADK_WEB_SSRF_POLICY_JSON',
  ssrfPolicyAlias: 'OPENCLAW_BROWSER_SSRF_POLICY_JSON',
  fetchMaxBytes: 'KSADK_WEB_FETCH_MAX_BYTES',
  fetchTimeout: 'KSADK_WEB_FETCH_TIMEOUT',
  fetchMaxTimeout: 'KSADK_WEB_FETCH_MAX_TIMEOUT',
  fetchMaxChars: 'KSADK_WEB_FETCH_MAX_CHARS',
  searchProvider: 'KSADK_WEB_SEARCH_PROVIDER',
  searchProviderAlias: 'OPENCLAW_WEB_SEARCH_PROVIDER',
  searchBaseUrl: 'KSADK_WEB_SEARCH_BASE_URL',
  searchBaseUrlAlias: 'OPENCLAW_WEB_SEARCH_BASE_URL',
  searchApiKey: 'KSADK_WEB_SEARCH_API_KEY',
  searchApiKeyAlias: 'OPENCLAW_WEB_SEARCH_API_KEY',
  searchScope: 'KSADK_WEB_SEARCH_SCOPE',
  searchTimeout: 'KSADK_WEB_SEARCH_TIMEOUT',
} as const;

/** Limits of `web_fetch`. */
export interface WebFetchLimits {
  /** Largest body read, in bytes; longer bodies are cut (`truncated: true`). @default 5 MiB */
  readonly maxBytes: number;
  /** Timeout when the model gives none, in seconds. @default 30 */
  readonly defaultTimeoutSeconds: number;
  /** Cap on the model's `timeout`, in seconds. @default 60 */
  readonly maxTimeoutSeconds: number;
  /** `max_chars` when the model gives none. @default 50,000 */
  readonly defaultMaxChars: number;
  /** Cap on the model's `max_chars` (the global result budget may cap it further). @default 100,000 */
  readonly maxChars: number;
  /** Redirects followed before `too_many_redirects`. @default 5 */
  readonly maxRedirects: number;
}

/** The defaults of {@link WebFetchLimits}. */
export const DEFAULT_WEB_FETCH_LIMITS: WebFetchLimits = Object.freeze({
  maxBytes: 5 * 1024 * 1024,
  defaultTimeoutSeconds: 30,
  maxTimeoutSeconds: 60,
  defaultMaxChars: 50_000,
  maxChars: 100_000,
  maxRedirects: 5,
});

/** The search providers `web_search` speaks to. */
export const WEB_SEARCH_PROVIDERS = ['fake', 'http', 'ksyun', 'tavily', 'brave'] as const;
/** One of {@link WEB_SEARCH_PROVIDERS}. */
export type WebSearchProviderName = (typeof WEB_SEARCH_PROVIDERS)[number];

/** Where and how `web_search` searches. */
export interface WebSearchConfig {
  /** The provider; `undefined` leaves `web_search` answering `provider_not_configured`. */
  readonly provider: string | undefined;
  /** The provider's endpoint; each provider but `http` has a default. */
  readonly endpoint?: string;
  /** The provider's API key (registered as a secret: it never appears in results). */
  readonly apiKey?: string;
  /** ksyun search scope. @default 'webpage' */
  readonly scope?: string;
  /** Per-request timeout, in milliseconds. @default 30,000 */
  readonly timeoutMs?: number;
  /** Largest provider response read, in bytes. @default 1 MiB */
  readonly maxResponseBytes?: number;
}

/** Provider defaults: endpoint and the API key variables after the common two. */
export const PROVIDER_DEFAULTS: Readonly<
  Record<WebSearchProviderName, { endpoint?: string; keyVariables: readonly string[] }>
> = {
  fake: { keyVariables: [] },
  http: { keyVariables: [] },
  ksyun: {
    endpoint: 'https://search.aipro.ksyun.com/v1/aisearch/search',
    keyVariables: ['KSADK_MCP_KEY', 'KSC_AIPRO_API_KEY', 'KSC_AIPRO_APIKEY', 'AIPRO_API_KEY'],
  },
  tavily: { endpoint: 'https://api.tavily.com/search', keyVariables: ['TAVILY_API_KEY'] },
  brave: {
    endpoint: 'https://api.search.brave.com/res/v1/web/search',
    keyVariables: ['BRAVE_SEARCH_API_KEY', 'BRAVE_API_KEY'],
  },
};

const first = (env: NodeJS.ProcessEnv, ...names: string[]): string | undefined => {
  for (const name of names) {
    const value = env[name]?.trim();
    if (value) return value;
  }
  return undefined;
};

/** Everything the web tools read from the environment, and what was wrong in it. */
export interface WebSettingsFromEnv {
  readonly policy: WebSsrfPolicy;
  readonly fetchLimits: WebFetchLimits;
  readonly search: WebSearchConfig;
  readonly problems: string[];
}

/**
 * Reads the web tools' variables (see `docs/web.md`). Never throws: a bad value is a problem and
 * the safe default applies (an unreadable SSRF policy allows nothing private).
 */
export function webSettingsFromEnv(env: NodeJS.ProcessEnv = process.env): WebSettingsFromEnv {
  const problems: string[] = [];
  const policySource = env[WEB_ENV.ssrfPolicy]?.trim()
    ? WEB_ENV.ssrfPolicy
    : WEB_ENV.ssrfPolicyAlias;
  const parsed = parseSsrfPolicyJson(env[policySource], policySource);
  problems.push(...parsed.problems);
  // A bad number is a problem here, not an error: the web tools load with the safe default.
  const positive = (name: KsadkVariable, fallback: number): number => {
    try {
      return wholeNumberFromEnv(env, name, fallback, 1);
    } catch (error) {
      if (!(error instanceof KsadkError)) throw error;
      problems.push(`${error.message}; using ${fallback}`);
      return fallback;
    }
  };
  const defaults = DEFAULT_WEB_FETCH_LIMITS;
  const fetchLimits: WebFetchLimits = {
    ...defaults,
    maxBytes: positive(WEB_ENV.fetchMaxBytes, defaults.maxBytes),
    defaultTimeoutSeconds: positive(WEB_ENV.fetchTimeout, defaults.defaultTimeoutSeconds),
    maxTimeoutSeconds: positive(WEB_ENV.fetchMaxTimeout, defaults.maxTimeoutSeconds),
    maxChars: positive(WEB_ENV.fetchMaxChars, defaults.maxChars),
  };
  const provider = first(env, WEB_ENV.searchProvider, WEB_ENV.searchProviderAlias)?.toLowerCase();
  const known = WEB_SEARCH_PROVIDERS.find((name) => name === provider);
  if (provider && !known)
    problems.push(
      `${WEB_ENV.searchProvider} "${provider.slice(0, 40)}" is not one of ${WEB_SEARCH_PROVIDERS.join(', ')}; web_search answers provider_not_configured`,
    );
  const endpoint = first(env, WEB_ENV.searchBaseUrl, WEB_ENV.searchBaseUrlAlias);
  const apiKey = first(
    env,
    WEB_ENV.searchApiKey,
    WEB_ENV.searchApiKeyAlias,
    ...(known ? PROVIDER_DEFAULTS[known].keyVariables : []),
  );
  const scope = env[WEB_ENV.searchScope]?.trim();
  const search: WebSearchConfig = {
    provider,
    ...(endpoint ? { endpoint } : {}),
    ...(apiKey ? { apiKey } : {}),
    ...(scope ? { scope } : {}),
    timeoutMs: positive(WEB_ENV.searchTimeout, 30) * 1000,
  };
  return { policy: parsed.policy, fetchLimits, search, problems };
}
