import { KsadkError } from '../errors/ksadk-error.js';
import { RISK_LEVELS, type RiskLevel } from '../tool/policy.js';

/** The environment variables of the MCP runtime. */
export const MCP_ENV = {
  servers: 'KSADK_MCP_SERVERS',
  enabled: 'KSADK_ENABLE_MCP_TOOLS',
} as const;

/**
 * One MCP server as you write it in code (camelCase). `KSADK_MCP_SERVERS` is JSON in the Python
 * KsADK's wire format (snake_case: `api_key`, `tool_filter`, `tool_name_prefix`, `timeout_ms`,
 * `risk_level`, `requires_approval`); those spellings are accepted here too.
 */
export interface McpServerOptions {
  /** A name for the server; tools join the catalogue group `mcp:<name>`. */
  readonly name: string;
  /** Absolute http(s) URL whose path ends in `/mcp`. */
  readonly url: string;
  /** Sent as `Authorization: Bearer <apiKey>`. Never shown in errors, logs or descriptors. */
  readonly apiKey?: string;
  /** Extra request headers (their values are treated as secrets). */
  readonly headers?: Readonly<Record<string, string>>;
  /** Only these tools (by the server's own names). Empty or absent: all. */
  readonly toolFilter?: readonly string[];
  /** Model-facing names become `<prefix>_<tool>`. */
  readonly toolNamePrefix?: string;
  /** Per-call timeout. @default 60000 */
  readonly timeoutMs?: number;
  /** Risk of every tool of this server. @default 'medium' */
  readonly riskLevel?: RiskLevel;
  /** `true`: always ask, even in `full` mode. */
  readonly requiresApproval?: boolean;
}

/** One validated MCP server: {@link McpServerOptions} with every default applied. */
export interface McpServerConfig extends McpServerOptions {
  readonly toolFilter: readonly string[];
  readonly timeoutMs: number;
  readonly riskLevel: RiskLevel;
}

/** The wire (snake_case) spellings accepted for each option, as in `KSADK_MCP_SERVERS`. */
const WIRE_NAMES: Readonly<Record<string, string>> = {
  api_key: 'apiKey',
  tool_filter: 'toolFilter',
  tool_name_prefix: 'toolNamePrefix',
  timeout_ms: 'timeoutMs',
  risk_level: 'riskLevel',
  requires_approval: 'requiresApproval',
};

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
  'apiKey',
  'headers',
  'toolFilter',
  'toolNamePrefix',
  'timeoutMs',
  'riskLevel',
  'requiresApproval',
  ...Object.keys(WIRE_NAMES),
]);

function checkEntry(
  item: unknown,
  index: number,
  source: string,
): McpServerConfig | McpConfigProblem {
  const where = `${source}[${index}]`;
  /** The spelling the entry used for each option, so problems name what the user wrote. */
  const spelled: Record<string, string> = {};
  const problem = (field: string | undefined, message: string): McpConfigProblem => {
    const shown = field === undefined ? undefined : (spelled[field] ?? field);
    return {
      index,
      ...(shown ? { field: shown } : {}),
      message: `${where}${shown ? `.${shown}` : ''}: ${message}`,
    };
  };
  if (typeof item !== 'object' || item === null || Array.isArray(item))
    return problem(undefined, 'must be an object');
  // One spelling per option: camelCase, or the wire format's snake_case.
  const entry: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(item)) {
    const name = WIRE_NAMES[key] ?? key;
    if (name in entry) return problem(key, `give ${name} or ${key}, not both`);
    entry[name] = value;
    spelled[name] = key;
  }
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
  for (const field of ['apiKey', 'toolNamePrefix'] as const) {
    if (entry[field] !== undefined && entry[field] !== null && typeof entry[field] !== 'string') {
      return problem(field, 'optional MCP config fields must be strings');
    }
  }
  const filter = entry['toolFilter'];
  if (filter !== undefined && filter !== null) {
    if (
      !Array.isArray(filter) ||
      filter.some((value) => typeof value !== 'string' || value.trim() === '')
    ) {
      return problem('toolFilter', 'must be a list of non-empty strings');
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
  const timeout = entry['timeoutMs'];
  if (
    timeout !== undefined &&
    timeout !== null &&
    (typeof timeout !== 'number' || !(timeout > 0) || timeout > 3_600_000)
  ) {
    return problem('timeoutMs', 'must be a positive number of milliseconds (at most one hour)');
  }
  const risk = entry['riskLevel'];
  if (risk !== undefined && risk !== null && !(RISK_LEVELS as readonly unknown[]).includes(risk)) {
    return problem('riskLevel', `must be one of ${RISK_LEVELS.join(', ')}`);
  }
  const requires = entry['requiresApproval'];
  if (requires !== undefined && requires !== null && typeof requires !== 'boolean') {
    return problem('requiresApproval', 'must be a boolean');
  }
  const prefix = typeof entry['toolNamePrefix'] === 'string' ? entry['toolNamePrefix'].trim() : '';
  const apiKey = typeof entry['apiKey'] === 'string' ? entry['apiKey'].trim() : '';
  return {
    name,
    url: url.toString(),
    ...(apiKey ? { apiKey: apiKey } : {}),
    ...(headers ? { headers: { ...(headers as Record<string, string>) } } : {}),
    toolFilter: ((filter as string[] | undefined) ?? []).map((value) => value.trim()),
    ...(prefix ? { toolNamePrefix: prefix } : {}),
    timeoutMs: (timeout as number | undefined) ?? 60_000,
    riskLevel: (risk as RiskLevel | undefined) ?? 'medium',
    ...(typeof requires === 'boolean' ? { requiresApproval: requires } : {}),
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
  return `${config.url}|${config.toolNamePrefix ?? ''}`;
}
