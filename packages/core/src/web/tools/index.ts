import type { Agent } from 'undici';
import { checkOptions, type OptionKeys } from '../../errors/check-options.js';
import { KsadkError } from '../../errors/ksadk-error.js';
import type { ToolPolicyInput } from '../../tool/policy.js';
import type { Tool } from '../../tool/tool.js';
import { registerSecret } from '../../util/redact.js';
import { systemResolver, type WebResolver } from '../resolver.js';
import {
  createSsrfPolicy,
  STRICT_SSRF_POLICY,
  type WebSsrfPolicy,
  type WebSsrfPolicyInput,
} from '../ssrf-policy.js';
import { loadUndici } from '../undici.js';
import {
  DEFAULT_WEB_FETCH_LIMITS,
  type WebFetchLimits,
  type WebSearchConfig,
  webSettingsFromEnv,
} from '../web-settings.js';
import { createWebFetchTool } from './web-fetch-tool.js';
import { createWebSearchTool } from './web-search-tool.js';

/** Options for {@link createWebToolset}. Nothing here is read from the environment. */
export interface WebToolsetOptions {
  /**
   * Resolves host names for `web_fetch`, once per request; the connection is pinned to the
   * addresses it returns, after they are checked. @default `dns.promises.lookup(host, { all: true })`
   */
  resolver?: WebResolver;
  /** Non-public targets `web_fetch` may reach. @default none: only global unicast addresses */
  ssrfPolicy?: WebSsrfPolicyInput;
  /** `web_fetch` limits; each left out takes its default (see `DEFAULT_WEB_FETCH_LIMITS`). */
  fetchLimits?: Partial<WebFetchLimits>;
  /** The search provider. @default none: `web_search` answers `provider_not_configured` */
  search?: WebSearchConfig;
  /**
   * Replaces a tool's default policy (low risk, `public_network`, approval-exempt) — for example
   * `{ web_fetch: { riskLevel: 'medium' } }` makes every fetch need approval in `risk` mode.
   */
  policies?: { web_fetch?: ToolPolicyInput; web_search?: ToolPolicyInput };
}

/** The web tools and what they hold. */
export interface WebToolset {
  /** `web_fetch`, then `web_search` (group `web`). */
  readonly tools: readonly Tool[];
  readonly webFetch: Tool;
  readonly webSearch: Tool;
  /** Configuration problems found while building (bad variables, the deprecated `allow_private`). */
  readonly problems: readonly string[];
  /** Closes the search provider's connection pool. Safe to call more than once. */
  close(): Promise<void>;
}

const LIMIT_KEYS = Object.keys(DEFAULT_WEB_FETCH_LIMITS) as (keyof WebFetchLimits)[];

function resolveLimits(input: Partial<WebFetchLimits> = {}): WebFetchLimits {
  checkOptions(
    input,
    Object.fromEntries(LIMIT_KEYS.map((key) => [key, true])) as OptionKeys<WebFetchLimits>,
    'createWebToolset() fetchLimits',
  );
  const limits = { ...DEFAULT_WEB_FETCH_LIMITS, ...input };
  for (const key of LIMIT_KEYS) {
    const value = limits[key];
    const floor = key === 'maxRedirects' ? 0 : 1;
    if (!Number.isSafeInteger(value) || value < floor)
      throw new KsadkError(
        'invalid_config',
        `createWebToolset() fetchLimits.${key} must be an integer of at least ${floor} (got ${String(value)}).`,
      );
  }
  return Object.freeze(limits);
}

function build(
  options: WebToolsetOptions,
  policy: WebSsrfPolicy,
  problems: readonly string[],
): WebToolset {
  const limits = resolveLimits(options.fetchLimits);
  const search: WebSearchConfig = options.search ?? { provider: undefined };
  checkOptions(
    search,
    {
      provider: true,
      endpoint: true,
      apiKey: true,
      scope: true,
      timeoutMs: true,
      maxResponseBytes: true,
    },
    'createWebToolset() search',
  );
  registerSecret(search.apiKey);
  let agent: Agent | undefined;
  const timeoutMs = search.timeoutMs ?? 30_000;
  const dispatcher = async (): Promise<Agent> => {
    const undici = await loadUndici();
    agent ??= new undici.Agent({
      connect: { timeout: timeoutMs },
      headersTimeout: timeoutMs,
      bodyTimeout: timeoutMs,
    });
    return agent;
  };
  const webFetch = createWebFetchTool(
    { resolver: options.resolver ?? systemResolver, policy },
    limits,
    options.policies?.web_fetch,
  );
  const webSearch = createWebSearchTool(search, dispatcher, options.policies?.web_search);
  return {
    tools: Object.freeze([webFetch, webSearch]),
    webFetch,
    webSearch,
    problems: Object.freeze([...problems]),
    async close() {
      const open = agent;
      agent = undefined;
      await open?.close().catch(() => undefined);
    },
  };
}

/**
 * The web tools (group `web`): `web_fetch`, which reads one public page under a strict SSRF policy
 * (DNS resolved once per hop and the connection pinned to the checked addresses; only global
 * unicast unless allowlisted; byte, time and size caps; HTML as main-content markdown), and
 * `web_search` over a configured provider. Both are approval-exempt, low risk by default; pass
 * `policies` to change that. Close the toolset when the agent is done.
 *
 * @throws {KsadkError} `invalid_config` for an unknown option, a bad limit or a bad policy entry.
 *
 * @example
 * ```ts
 * const web = createWebToolset({
 *   ssrfPolicy: { allowedHosts: ['intranet.example'] },
 *   search: { provider: 'brave', apiKey: process.env.BRAVE_SEARCH_API_KEY },
 * });
 * const gateway = createToolGateway();
 * const page = await gateway.invoke(web.webFetch, { url: 'https://example.com/' });
 * await web.close();
 * ```
 */
export function createWebToolset(options: WebToolsetOptions = {}): WebToolset {
  checkOptions(
    options,
    { resolver: true, ssrfPolicy: true, fetchLimits: true, search: true, policies: true },
    'createWebToolset()',
  );
  checkOptions(
    options.ssrfPolicy,
    { allowedHosts: true, allowedCidrs: true },
    'createWebToolset() ssrfPolicy',
  );
  checkOptions(
    options.policies,
    { web_fetch: true, web_search: true },
    'createWebToolset() policies',
  );
  const policy = options.ssrfPolicy ? createSsrfPolicy(options.ssrfPolicy) : STRICT_SSRF_POLICY;
  return build(options, policy, []);
}

/**
 * The web tools configured from the environment (`KSADK_WEB_SSRF_POLICY_JSON`,
 * `KSADK_WEB_FETCH_*`, `KSADK_WEB_SEARCH_*`; see `docs/web.md`), with options in code winning
 * field by field. Bad variables never throw: they are listed in `problems` and the safe default
 * applies.
 *
 * @example
 * ```ts
 * const web = webToolsetFromEnv();
 * for (const problem of web.problems) console.warn(problem);
 * ```
 */
export function webToolsetFromEnv(
  options: WebToolsetOptions & { env?: NodeJS.ProcessEnv } = {},
): WebToolset {
  const { env, ...rest } = options;
  checkOptions(
    rest,
    { resolver: true, ssrfPolicy: true, fetchLimits: true, search: true, policies: true },
    'webToolsetFromEnv()',
  );
  const settings = webSettingsFromEnv(env ?? process.env);
  const policy = rest.ssrfPolicy ? createSsrfPolicy(rest.ssrfPolicy) : settings.policy;
  return build(
    {
      ...rest,
      fetchLimits: { ...settings.fetchLimits, ...rest.fetchLimits },
      search: { ...settings.search, ...rest.search },
    },
    policy,
    settings.problems,
  );
}
