// @ksadk/core/web — the web tools (`web_fetch`, `web_search`) and the pieces they are built from:
// address classification, the SSRF policy, HTML-to-markdown conversion and search providers.

export { isGlobalUnicastAddress } from './address-class.js';
export {
  type ConvertedPage,
  DEFAULT_HTML_CONVERSION_DEADLINE_MS,
  type HtmlConversionFailure,
  type HtmlToMarkdownOptions,
  htmlToMarkdown,
} from './html-to-markdown.js';
export type { ResolvedAddress, WebResolver } from './resolver.js';
export type { WebSearchQuery, WebSearchResult } from './search-providers.js';
export {
  type ParsedSsrfPolicy,
  parseSsrfPolicyJson,
  type WebSsrfPolicy,
  type WebSsrfPolicyInput,
} from './ssrf-policy.js';
export {
  createWebToolset,
  type WebToolset,
  type WebToolsetOptions,
  webToolsetFromEnv,
} from './tools/index.js';
export type {
  WebFetchLimits,
  WebSearchConfig,
  WebSearchProviderName,
} from './web-settings.js';
