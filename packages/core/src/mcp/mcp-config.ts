import { KsadkError } from '../errors/ksadk-error.js';
import { RISK_LEVELS, type RiskLevel } from '../tool/policy.js';

/** The environment variables of the MCP runtime. */
export const MCP_ENV = {
  servers: 'KSADK_MCP_SERVERS',
  enabled: 'KSADK_ENABLE_MCP_TOOLS',
} as const;

/** One MCP server to connect to over Streamable HTTP. */
export interface McpServerConfig {
  /** A name for the server; tools join the catalogue group `mcp:<name>`. */
  readonly name: string;
  /** Absolute http(s) URL whose path ends in `/mcp`. */
  readonly url: string;
  /** Sent as `Authorization: Bearer <api_key>`. Never shown in errors, logs or descriptors. */
  readonly api_key?: string;
  /** Extra request headers (their values are treated as secrets). */
  readonly headers?: Readonly<Record<string, string>>;
  /** Only these tools (by the server's own names). Empty or absent: all. */
  readonly tool_filter: readonly string[];
  /** Model-facing names become `<prefix>_<tool>`. */
  readonly tool_name_prefix?: string;
  /** Per-call timeout. @default 60000 */
  readonly timeout_ms: number;
  /** Risk of every tool of this server. @default 'medium' */
  readonly risk_level: RiskLevel;
  /** `true`: always ask, even in `full` mode. */
  readonly requires_approval?: boolean;
}

/** A configuration entry that was refused, and why (never containing a secret). */
export interface McpConfigProblem {
  /** Index in the array, or -1 for the whole value. */
  readonly index: number;
  /** The field at fault, when one is. */
  readonly field?: string;
  readonly message: string;
}

/** Valid entries and the problems of the others. */
export interface McpConfigResult {
  readonly configs: McpServerConfig[];
  readonly problems: McpConfigProblem[];
}

const FIELDS = new Set([
  'name',
  'url',
  'api_key',
  'headers',
  'tool_filter',
  'tool_name_prefix',
  'timeout_ms',
  'risk_level',
  'requires_approval',
]);

function checkEntry(
  item: unknown,
  index: number,
  source: string,
): McpServerConfig | McpConfigProblem {
  const where = `${source}[${index}]`;
  const problem = (field: string | undefined, message: string): McpConfigProblem => ({
    index,
    ...(field ? { field } : {}),
    message: `${where}${field ? `.${field}` : ''}: ${message}`,
  });
  if (typeof item !== 'object' || item === null || Array.isArray(item))
    return problem(undefined, 'must be an object');
  const entry = item as Record<string, unknown>;
  const name = typeof entry['name'] === 'string' ? entry['name'].trim() : '';
  if (!name) return problem('name', 'must be a non-empty string');
  if (typeof entry['url'] !== 'string' || entry['url'].trim() === '')
    return problem('url', 'must be a non-empty string');
  let url: URL;
  try {
    url = new URL(entry['url'].trim());
  } catch {
    return problem('url', 'MCP server url must be an absolute http(s) URL');
  }
  if ((url.protocol !== 'http:' && url.protocol !== 'https:') || url.hostname === '') {
    return problem('url', 'MCP server url must be an absolute http(s) URL');
  }
  if (url.username || url.password)
    return problem('url', 'MCP server url must not carry credentials; use api_key or headers');
  if (!url.pathname.endsWith('/mcp'))
    return problem('url', 'MCP server url must point to a /mcp endpoint');
  for (const field of ['api_key', 'tool_name_prefix'] as const) {
    if (entry[field] !== undefined && entry[field] !== null && typeof entry[field] !== 'string') {
      return problem(field, 'optional MCP config fields must be strings');
    }
  }
  const filter = entry['tool_filter'];
  if (filter !== undefined && filter !== null) {
    if (
      !Array.isArray(filter) ||
      filter.some((value) => typeof value !== 'string' || value.trim() === '')
    ) {
      return problem('tool_filter', 'must be a list of non-empty strings');
    }
  }
  const headers = entry['headers'];
  if (headers !== undefined && headers !== null) {
    if (
      typeof headers !== 'object' ||
      Array.isArray(headers) ||
      Object.values(headers).some((value) => typeof value !== 'string')
    ) {
      return problem('headers', 'must be an object of string values');
    }
  }
  const timeout = entry['timeout_ms'];
  if (
    timeout !== undefined &&
    timeout !== null &&
    (typeof timeout !== 'number' || !(timeout > 0) || timeout > 3_600_000)
  ) {
    return problem('timeout_ms', 'must be a positive number of milliseconds (at most one hour)');
  }
  const risk = entry['risk_level'];
  if (risk !== undefined && risk !== null && !(RISK_LEVELS as readonly unknown[]).includes(risk)) {
    return problem('risk_level', `must be one of ${RISK_LEVELS.join(', ')}`);
  }
  const requires = entry['requires_approval'];
  if (requires !== undefined && requires !== null && typeof requires !== 'boolean') {
    return problem('requires_approval', 'must be a boolean');
  }
  const prefix =
    typeof entry['tool_name_prefix'] === 'string' ? entry['tool_name_prefix'].trim() : '';
  const apiKey = typeof entry['api_key'] === 'string' ? entry['api_key'].trim() : '';
  return {
    name,
    url: url.toString(),
    ...(apiKey ? { api_key: apiKey } : {}),
    ...(headers ? { headers: { ...(headers as Record<string, string>) } } : {}),
    tool_filter: ((filter as string[] | undefined) ?? []).map((value) => value.trim()),
    ...(prefix ? { tool_name_prefix: prefix } : {}),
    timeout_ms: (timeout as number | undefined) ?? 60_000,
    risk_level: (risk as RiskLevel | undefined) ?? 'medium',
    ...(typeof requires === 'boolean' ? { requires_approval: requires } : {}),
  };
}

/**
 * Validates MCP server configurations (an array, or its JSON text). Each entry is checked on its
 * own: valid entries are kept, every invalid one is reported with its index, field and reason,
 * so one bad entry never silently drops the rest. Unknown keys are reported too (as problems
 * that do not drop the entry). Secrets never appear in the messages.
 */
export function parseMcpServerConfigs(
  raw: unknown,
  source: string = MCP_ENV.servers,
): McpConfigResult {
  let value = raw;
  if (typeof raw === 'string') {
    if (raw.trim() === '') return { configs: [], problems: [] };
    try {
      value = JSON.parse(raw);
    } catch {
      return {
        configs: [],
        problems: [{ index: -1, message: `${source} must be a valid JSON array` }],
      };
    }
  }
  if (value === undefined || value === null) return { configs: [], problems: [] };
  if (!Array.isArray(value))
    return { configs: [], problems: [{ index: -1, message: `${source} must be a JSON array` }] };
  const configs: McpServerConfig[] = [];
  const problems: McpConfigProblem[] = [];
  value.forEach((item, index) => {
    const checked = checkEntry(item, index, source);
    if ('message' in checked) {
      problems.push(checked);
      return;
    }
    for (const key of Object.keys(item as object)) {
      if (!FIELDS.has(key))
        problems.push({
          index,
          field: key,
          message: `${source}[${index}].${key}: unknown field, ignored`,
        });
    }
    configs.push(checked);
  });
  return { configs, problems };
}

/** Whether MCP tools are enabled: `KSADK_ENABLE_MCP_TOOLS` unless `0`, `false`, `no` or `off`. */
export function mcpToolsEnabled(env: NodeJS.ProcessEnv = process.env): boolean {
  const raw = env[MCP_ENV.enabled]?.trim().toLowerCase();
  return !(raw === '0' || raw === 'false' || raw === 'no' || raw === 'off');
}

/**
 * Reads `KSADK_MCP_SERVERS`. With `strict`, any problem throws instead of being returned.
 *
 * @throws {KsadkError} `invalid_config` (strict only) listing every problem.
 */
export function loadMcpServerConfigsFromEnv(
  options: { env?: NodeJS.ProcessEnv; strict?: boolean } = {},
): McpConfigResult {
  const env = options.env ?? process.env;
  const result = parseMcpServerConfigs(env[MCP_ENV.servers], MCP_ENV.servers);
  if (options.strict && result.problems.length > 0) {
    throw new KsadkError(
      'invalid_config',
      result.problems.map((problem) => problem.message).join('; '),
      {
        details: { problems: result.problems },
      },
    );
  }
  return result;
}

/** The key toolsets are de-duplicated by: `<url>|<prefix>`. */
export function mcpDedupeKey(config: McpServerConfig): string {
  return `${config.url}|${config.tool_name_prefix ?? ''}`;
}
