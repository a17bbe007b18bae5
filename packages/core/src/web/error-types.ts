import type { ErrorTypeTable } from '../gateway/tool-error-types.js';

/** The `error_type` values of the web tools, with their retry hints (besides the gateway's own). */
export const WEB_ERROR_TYPES = {
  url_required: 'fix',
  invalid_url: 'fix',
  unsupported_scheme: 'fix',
  dns_resolution_failed: 'fix',
  blocked_by_ssrf_policy: 'no',
  too_many_redirects: 'no',
  unsupported_content_type: 'no',
  fetch_failed: 'retry',
  provider_not_configured: 'no',
  provider_error: 'retry',
} as const satisfies ErrorTypeTable;

/** One of {@link WEB_ERROR_TYPES}. */
export type WebErrorType = keyof typeof WEB_ERROR_TYPES;
