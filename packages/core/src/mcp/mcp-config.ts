import path from 'node:path';
import { KsadkError } from '../errors/ksadk-error.js';
import { RISK_LEVELS, type RiskLevel } from '../tool/policy.js';
import { isPlainObject } from '../util/plain-object.js';
import { MCP_ENV } from './mcp-env.js';
import { checkMcpOAuth, type McpOAuthOptions } from './mcp-oauth-config.js';
import {
  checkStdioSandbox,
  type McpStdioSandboxConfig,
  type McpStdioSandboxOption,
} from './stdio-sandbox-config.js';

/** What every server entry may carry, whatever its transport. */
export interface McpServerCommonOptions {
  /** A name for the server; tools join the catalogue group `mcp:<name>`. */
  readonly name: string;
  /** Only these tools (by the server's own names). Empty or absent: all. */
  readonly toolFilter?: readonly string[];
  /** Model-facing names become `<prefix>_<tool>`. */
  readonly toolNamePrefix?: string;
  /** Per-call timeout (also bounds initialisation). @default 60000 */
  readonly timeoutMs?: number;
  /** Risk of every tool of this server. @default 'medium' */
  readonly riskLevel?: RiskLevel;
  /** `true`: always ask, even in `full` mode. */
  readonly requiresApproval?: boolean;
  /**
   * Policies of single tools, by the server's own tool name; they win over `riskLevel`,
   * `requiresApproval`, `autoApprove` and `trustAnnotations`.
   */
  readonly toolPolicies?: Readonly<Record<string, McpToolPolicy>>;
  /**
   * Tools (by the server's own names) that never ask for approval: the user's explicit choice,
   * as in Cline and Roo Code configurations.
   */
  readonly autoApprove?: readonly string[];
  /**
   * Trust the server's tool annotations: a tool marked `readOnlyHint: true` (and not
   * `destructiveHint: true`) becomes `low` risk, which asks no approval in the default mode. Off
   * by default: annotations are the server's claims, and a hostile or buggy server can lie.
   * @default false
   */
  readonly trustAnnotations?: boolean;
  /** `true`: the entry is skipped (as in Cline and Roo Code configurations). */
  readonly disabled?: boolean;
}

/** The policy of one tool of a server. */
export interface McpToolPolicy {
  readonly riskLevel?: RiskLevel;
  /** `true`: always ask; `false`: never ask. */
  readonly requiresApproval?: boolean;
}

/**
 * An MCP server reached over HTTP: Streamable HTTP, falling back to the legacy HTTP+SSE
 * transport when the server answers Streamable HTTP's `initialize` with a 4xx.
 */
export interface McpHttpServerOptions extends McpServerCommonOptions {
  /** Absolute http(s) URL whose path ends in `/mcp` (or `/sse` for a legacy SSE server). */
  readonly url: string;
  /** `'sse'`: legacy HTTP+SSE only. `'http'` (also `'streamable-http'`): the default. */
  readonly type?: 'http' | 'streamable-http' | 'sse';
  /** Sent as `Authorization: Bearer <apiKey>`. Never shown in errors, logs or descriptors. */
  readonly apiKey?: string;
  /** Extra request headers (their values are treated as secrets). */
  readonly headers?: Readonly<Record<string, string>>;
  /**
   * The server requires OAuth: each account's user signs in (the MCP authorization flow), and
   * calls and listings use that user's token. Not with `apiKey` or an `Authorization` header.
   */
  readonly oauth?: McpOAuthOptions;
  readonly command?: never;
}

/**
 * An MCP server run as a child process speaking MCP on its stdin/stdout — the way Claude
 * Desktop, Cursor and most READMEs write it (`"command": "npx", "args": [...]`).
 */
export interface McpStdioServerOptions extends McpServerCommonOptions {
  /** The program (looked up on `PATH`; no shell). */
  readonly command: string;
  readonly args?: readonly string[];
  /**
   * The child's environment, besides `PATH` and `HOME` (nothing else of this process's
   * environment is passed on). Values are never shown in messages.
   */
  readonly env?: Readonly<Record<string, string>>;
  /** Working directory (relative to this process's). @default this process's */
  readonly cwd?: string;
  /**
   * How the server is isolated: `'bubblewrap'` runs it in namespaces of its own, seeing only
   * the paths listed (see {@link McpStdioSandboxOption}). @default the toolset's default
   * (`KSADK_MCP_STDIO_SANDBOX`), else `'none'`
   */
  readonly sandbox?: McpStdioSandboxOption;
  readonly type?: 'stdio';
  readonly url?: never;
}

/**
 * One MCP server as you write it in code (camelCase): an HTTP server (`url`) or a stdio server
 * (`command`). `KSADK_MCP_SERVERS` is JSON in the Python KsADK's wire format (snake_case:
 * `api_key`, `tool_filter`, `tool_name_prefix`, `timeout_ms`, `risk_level`,
 * `requires_approval`); those spellings are accepted here too.
 */
export type McpServerOptions = McpHttpServerOptions | McpStdioServerOptions;

/**
 * The Claude Desktop / Cursor configuration shape: servers by name. Accepted wherever a list of
 * servers is (as `KSADK_MCP_SERVERS`'s whole value too).
 */
export interface McpServersObject {
  readonly mcpServers: Readonly<
    Record<
      string,
      | (Omit<McpHttpServerOptions, 'name'> & { readonly name?: string })
      | (Omit<McpStdioServerOptions, 'name'> & { readonly name?: string })
    >
  >;
}

/** A validated HTTP server. `type` is `'sse'` when only legacy SSE is to be used. */
export interface McpHttpServerConfig
  extends Omit<
    McpHttpServerOptions,
    'type' | 'disabled' | 'toolFilter' | 'timeoutMs' | 'riskLevel'
  > {
  readonly type: 'http' | 'sse';
  readonly toolFilter: readonly string[];
  readonly timeoutMs: number;
  readonly riskLevel: RiskLevel;
}

/** A validated stdio server (`cwd`, when given, made absolute). */
export interface McpStdioServerConfig
  extends Omit<
    McpStdioServerOptions,
    'type' | 'disabled' | 'args' | 'env' | 'toolFilter' | 'timeoutMs' | 'riskLevel' | 'sandbox'
  > {
  readonly type: 'stdio';
  readonly args: readonly string[];
  readonly env: Readonly<Record<string, string>>;
  /** Absent: the toolset's default applies. */
  readonly sandbox?: 'none' | McpStdioSandboxConfig;
  readonly toolFilter: readonly string[];
  readonly timeoutMs: number;
  readonly riskLevel: RiskLevel;
}

/** One validated MCP server: {@link McpServerOptions} with every default applied. */
export type McpServerConfig = McpHttpServerConfig | McpStdioServerConfig;

/** The wire (snake_case) spellings accepted for each option, as in `KSADK_MCP_SERVERS`. */
const WIRE_NAMES: Readonly<Record<string, string>> = {
  api_key: 'apiKey',
  tool_filter: 'toolFilter',
  tool_name_prefix: 'toolNamePrefix',
  timeout_ms: 'timeoutMs',
  risk_level: 'riskLevel',
  requires_approval: 'requiresApproval',
  tool_policies: 'toolPolicies',
  auto_approve: 'autoApprove',
  trust_annotations: 'trustAnnotations',
};

/** A configuration entry that was refused, and why (never containing a secret). */
export interface McpConfigProblem {
  /** Position of the entry (in the array, or among `mcpServers`), or -1 for the whole value. */
  readonly index: number;
  /** The server's name, when it has one. */
  readonly name?: string;
  /** The field at fault, when one is. */
  readonly field?: string;
  readonly message: string;
}

/** Valid entries and the problems of the others. */
export interface McpConfigResult {
  readonly configs: McpServerConfig[];
  readonly problems: McpConfigProblem[];
}

const COMMON_FIELDS = [
  'name',
  'type',
  'disabled',
  'toolFilter',
  'toolNamePrefix',
  'timeoutMs',
  'riskLevel',
  'requiresApproval',
  'toolPolicies',
  'autoApprove',
  'trustAnnotations',
];
const HTTP_FIELDS = ['url', 'apiKey', 'headers', 'oauth'];
const STDIO_FIELDS = ['command', 'args', 'env', 'cwd', 'sandbox'];
const FIELDS = new Set([
  ...COMMON_FIELDS,
  ...HTTP_FIELDS,
  ...STDIO_FIELDS,
  ...Object.keys(WIRE_NAMES),
]);
const TYPES: Readonly<Record<string, 'http' | 'sse' | 'stdio'>> = {
  http: 'http',
  'streamable-http': 'http',
  streamableHttp: 'http',
  sse: 'sse',
  stdio: 'stdio',
};

const given = (value: unknown): boolean => value !== undefined && value !== null;
const hasNul = (value: string): boolean => value.includes('\0');

/** One entry to check: where it sits and, in the `mcpServers` shape, the name it is keyed by. */
interface Located {
  readonly item: unknown;
  readonly index: number;
  readonly where: string;
  readonly key?: string;
}

type Problem = (field: string | undefined, message: string) => McpConfigProblem;

function checkEntry({ item, index, where, key }: Located): McpServerConfig | McpConfigProblem {
  /** The spelling the entry used for each option, so problems name what the user wrote. */
  const spelled: Record<string, string> = {};
  let named = key?.trim() || undefined;
  const problem: Problem = (field, message) => {
    const shown = field === undefined ? undefined : (spelled[field] ?? field);
    return {
      index,
      ...(named ? { name: named } : {}),
      ...(shown ? { field: shown } : {}),
      message: `${where}${shown ? `.${shown}` : ''}: ${message}`,
    };
  };
  if (!isPlainObject(item)) return problem(undefined, 'must be an object');
  // One spelling per option: camelCase, or the wire format's snake_case.
  const entry: Record<string, unknown> = {};
  for (const [field, value] of Object.entries(item)) {
    const option = WIRE_NAMES[field] ?? field;
    if (option in entry) return problem(field, `give ${option} or ${field}, not both`);
    entry[option] = value;
    spelled[option] = field;
  }
  if (key !== undefined) {
    if (!named) return problem(undefined, 'the server name (its key) must be non-empty');
    if (given(entry['name']) && entry['name'] !== key)
      return problem('name', 'must be the same as its key in mcpServers, or absent');
  } else {
    named = typeof entry['name'] === 'string' ? entry['name'].trim() || undefined : undefined;
    if (!named) return problem('name', 'must be a non-empty string');
  }
  const name = named;

  const type = entry['type'];
  if (given(type) && (typeof type !== 'string' || !Object.hasOwn(TYPES, type)))
    return problem('type', `must be one of ${Object.keys(TYPES).join(', ')}`);
  const kind = typeof type === 'string' ? TYPES[type] : undefined;
  const hasUrl = given(entry['url']);
  const hasCommand = given(entry['command']);
  if (hasUrl && hasCommand)
    return problem('command', 'give url (an HTTP server) or command (a stdio server), not both');
  if (!hasUrl && !hasCommand)
    return problem('url', 'give url (an HTTP server) or command (a stdio server)');
  if (kind === 'stdio' && hasUrl) return problem('type', 'a stdio server needs command, not url');
  if ((kind === 'http' || kind === 'sse') && hasCommand)
    return problem('type', `a ${type} server needs url, not command`);

  const common = checkCommon(entry, problem);
  if ('message' in common) return common;
  if (hasCommand) {
    const stdio = checkStdio(entry, problem);
    return 'message' in stdio ? stdio : { name, ...stdio, ...common };
  }
  const http = checkHttp(entry, problem);
  return 'message' in http
    ? http
    : { name, ...http, type: kind === 'sse' ? 'sse' : 'http', ...common };
}

function checkCommon(
  entry: Record<string, unknown>,
  problem: Problem,
):
  | Pick<
      McpHttpServerConfig,
      | 'toolFilter'
      | 'timeoutMs'
      | 'riskLevel'
      | 'toolNamePrefix'
      | 'requiresApproval'
      | 'toolPolicies'
      | 'autoApprove'
      | 'trustAnnotations'
    >
  | McpConfigProblem {
  const prefix = entry['toolNamePrefix'];
  if (given(prefix) && typeof prefix !== 'string')
    return problem('toolNamePrefix', 'optional MCP config fields must be strings');
  const filter = entry['toolFilter'];
  if (
    given(filter) &&
    (!Array.isArray(filter) ||
      filter.some((value) => typeof value !== 'string' || value.trim() === ''))
  ) {
    return problem('toolFilter', 'must be a list of non-empty strings');
  }
  const timeout = entry['timeoutMs'];
  if (given(timeout) && (typeof timeout !== 'number' || !(timeout > 0) || timeout > 3_600_000)) {
    return problem('timeoutMs', 'must be a positive number of milliseconds (at most one hour)');
  }
  const risk = entry['riskLevel'];
  if (given(risk) && !(RISK_LEVELS as readonly unknown[]).includes(risk)) {
    return problem('riskLevel', `must be one of ${RISK_LEVELS.join(', ')}`);
  }
  const requires = entry['requiresApproval'];
  if (given(requires) && typeof requires !== 'boolean')
    return problem('requiresApproval', 'must be a boolean');
  if (given(entry['disabled']) && typeof entry['disabled'] !== 'boolean')
    return problem('disabled', 'must be a boolean');
  const approvals = checkToolApprovals(entry, problem);
  if ('message' in approvals) return approvals;
  const trimmedPrefix = typeof prefix === 'string' ? prefix.trim() : '';
  return {
    toolFilter: ((filter as string[] | undefined) ?? []).map((value) => value.trim()),
    ...(trimmedPrefix ? { toolNamePrefix: trimmedPrefix } : {}),
    timeoutMs: (timeout as number | undefined) ?? 60_000,
    riskLevel: (risk as RiskLevel | undefined) ?? 'medium',
    ...(typeof requires === 'boolean' ? { requiresApproval: requires } : {}),
    ...approvals,
  };
}

const MAX_TOOL_POLICIES = 1000;

/** `toolPolicies`, `autoApprove` and `trustAnnotations`, checked. */
function checkToolApprovals(
  entry: Record<string, unknown>,
  problem: Problem,
):
  | Pick<McpServerCommonOptions, 'toolPolicies' | 'autoApprove' | 'trustAnnotations'>
  | McpConfigProblem {
  const policies = entry['toolPolicies'];
  const out: {
    toolPolicies?: Record<string, McpToolPolicy>;
    autoApprove?: string[];
    trustAnnotations?: boolean;
  } = {};
  if (given(policies)) {
    if (!isPlainObject(policies) || Object.keys(policies).length > MAX_TOOL_POLICIES)
      return problem('toolPolicies', `must be an object of at most ${MAX_TOOL_POLICIES} tools`);
    const checked: Record<string, McpToolPolicy> = Object.create(null);
    for (const [tool, policy] of Object.entries(policies)) {
      if (
        !isPlainObject(policy) ||
        Object.keys(policy).some((key) => key !== 'riskLevel' && key !== 'requiresApproval') ||
        (given(policy['riskLevel']) &&
          !(RISK_LEVELS as readonly unknown[]).includes(policy['riskLevel'])) ||
        (given(policy['requiresApproval']) && typeof policy['requiresApproval'] !== 'boolean')
      )
        return problem(
          'toolPolicies',
          `${JSON.stringify(tool.slice(0, 80))} must be { riskLevel?, requiresApproval? }`,
        );
      checked[tool] = {
        ...(given(policy['riskLevel']) ? { riskLevel: policy['riskLevel'] as RiskLevel } : {}),
        ...(given(policy['requiresApproval'])
          ? { requiresApproval: policy['requiresApproval'] as boolean }
          : {}),
      };
    }
    out.toolPolicies = { ...checked };
  }
  const auto = entry['autoApprove'];
  if (given(auto)) {
    if (
      !Array.isArray(auto) ||
      auto.length > MAX_TOOL_POLICIES ||
      auto.some((name) => typeof name !== 'string' || name.trim() === '')
    )
      return problem('autoApprove', 'must be a list of tool names');
    out.autoApprove = auto.map((name: string) => name.trim());
  }
  const trust = entry['trustAnnotations'];
  if (given(trust)) {
    if (typeof trust !== 'boolean') return problem('trustAnnotations', 'must be a boolean');
    out.trustAnnotations = trust;
  }
  return out;
}

function checkHttp(
  entry: Record<string, unknown>,
  problem: Problem,
): Pick<McpHttpServerConfig, 'url' | 'apiKey' | 'headers' | 'oauth'> | McpConfigProblem {
  for (const field of STDIO_FIELDS) {
    if (given(entry[field]))
      return problem(field, 'only a stdio server (one with command) takes this field');
  }
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
  if (!url.pathname.endsWith('/mcp') && !url.pathname.endsWith('/sse'))
    return problem('url', 'MCP server url must point to a /mcp endpoint');
  const apiKey = entry['apiKey'];
  if (given(apiKey) && typeof apiKey !== 'string')
    return problem('apiKey', 'optional MCP config fields must be strings');
  const headers = entry['headers'];
  if (
    given(headers) &&
    (!isPlainObject(headers) || Object.values(headers).some((value) => typeof value !== 'string'))
  ) {
    return problem('headers', 'must be an object of string values');
  }
  const key = typeof apiKey === 'string' ? apiKey.trim() : '';
  let oauth: McpOAuthOptions | undefined;
  if (given(entry['oauth'])) {
    const checked = checkMcpOAuth(entry['oauth']);
    if (typeof checked === 'string') return problem('oauth', checked);
    const authorization = Object.keys(headers ?? {}).some(
      (h) => h.toLowerCase() === 'authorization',
    );
    if (key || authorization)
      return problem('oauth', 'give oauth or apiKey / an Authorization header, not both');
    oauth = checked;
  }
  return {
    url: url.toString(),
    ...(key ? { apiKey: key } : {}),
    ...(headers ? { headers: { ...(headers as Record<string, string>) } } : {}),
    ...(oauth ? { oauth } : {}),
  };
}

function checkStdio(
  entry: Record<string, unknown>,
  problem: Problem,
):
  | Pick<McpStdioServerConfig, 'type' | 'command' | 'args' | 'env' | 'cwd' | 'sandbox'>
  | McpConfigProblem {
  for (const field of HTTP_FIELDS) {
    if (given(entry[field]))
      return problem(field, 'only an HTTP server (one with url) takes this field');
  }
  const command = entry['command'];
  if (typeof command !== 'string' || command.trim() === '' || hasNul(command))
    return problem('command', 'must be a non-empty string');
  const args = entry['args'];
  if (
    given(args) &&
    (!Array.isArray(args) || args.some((arg) => typeof arg !== 'string' || hasNul(arg)))
  ) {
    // The values are not shown: arguments often carry tokens.
    return problem('args', 'must be a list of strings');
  }
  const env = entry['env'];
  if (given(env)) {
    if (!isPlainObject(env)) return problem('env', 'must be an object of string values');
    for (const [variable, value] of Object.entries(env)) {
      if (variable === '' || variable.includes('=') || hasNul(variable))
        return problem('env', `has an invalid variable name ${JSON.stringify(variable)}`);
      // The value is never shown: it is usually a credential.
      if (typeof value !== 'string' || hasNul(value))
        return problem('env', `${variable} must be a string`);
    }
  }
  const cwd = entry['cwd'];
  if (given(cwd) && (typeof cwd !== 'string' || cwd.trim() === '' || hasNul(cwd)))
    return problem('cwd', 'must be a non-empty string');
  const sandbox = given(entry['sandbox']) ? checkStdioSandbox(entry['sandbox']) : undefined;
  if (typeof sandbox === 'object' && 'message' in sandbox)
    return problem('sandbox', sandbox.message);
  return {
    type: 'stdio',
    command: command.trim(),
    args: [...((args as string[] | undefined) ?? [])],
    env: { ...((env as Record<string, string> | undefined) ?? {}) },
    ...(typeof cwd === 'string' ? { cwd: path.resolve(cwd.trim()) } : {}),
    ...(sandbox ? { sandbox } : {}),
  };
}

/** A readable path to one server of the `mcpServers` shape. */
const keyPath = (source: string, key: string): string =>
  /^[\w.-]+$/.test(key)
    ? `${source}.mcpServers.${key}`
    : `${source}.mcpServers[${JSON.stringify(key)}]`;

/**
 * Validates MCP server configurations: an array of servers, an `{ "mcpServers": { <name>: … } }`
 * object (the Claude Desktop / Cursor shape), or the JSON text of either. Each entry is checked
 * on its own: valid entries are kept, every invalid one is reported with its position, name,
 * field and reason, so one bad entry never silently drops the rest. Unknown keys are reported
 * too (as problems that do not drop the entry); disabled entries are skipped. Secrets (API keys,
 * header values, environment values, arguments) never appear in the messages.
 *
 * @example
 * ```ts
 * const { configs, problems } = parseMcpServerConfigs({
 *   mcpServers: {
 *     files: { command: 'npx', args: ['-y', '@modelcontextprotocol/server-filesystem', '/data'] },
 *     docs: { url: 'https://docs.example.com/mcp', headers: { 'X-Team': 'a' } },
 *   },
 * });
 * ```
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
        problems: [
          { index: -1, message: `${source} must be a valid JSON array or mcpServers object` },
        ],
      };
    }
  }
  if (value === undefined || value === null) return { configs: [], problems: [] };
  const problems: McpConfigProblem[] = [];
  let entries: Located[];
  if (Array.isArray(value)) {
    entries = value.map((item, index) => ({ item, index, where: `${source}[${index}]` }));
  } else if (isPlainObject(value) && 'mcpServers' in value) {
    const servers = value['mcpServers'];
    if (!isPlainObject(servers)) {
      return {
        configs: [],
        problems: [{ index: -1, message: `${source}.mcpServers must be an object of servers` }],
      };
    }
    for (const field of Object.keys(value)) {
      if (field !== 'mcpServers')
        problems.push({
          index: -1,
          field,
          message: `${source}.${field}: unknown field, ignored`,
        });
    }
    entries = Object.entries(servers).map(([key, item], index) => ({
      item,
      index,
      key,
      where: keyPath(source, key),
    }));
  } else {
    return {
      configs: [],
      problems: [{ index: -1, message: `${source} must be a JSON array or mcpServers object` }],
    };
  }
  const configs: McpServerConfig[] = [];
  for (const located of entries) {
    // A disabled entry is skipped unchecked: it may well be unfinished.
    if (isPlainObject(located.item) && located.item['disabled'] === true) continue;
    const checked = checkEntry(located);
    if ('message' in checked) {
      problems.push(checked);
      continue;
    }
    for (const field of Object.keys(located.item as object)) {
      if (!FIELDS.has(field))
        problems.push({
          index: located.index,
          name: checked.name,
          field,
          message: `${located.where}.${field}: unknown field, ignored`,
        });
    }
    configs.push(checked);
  }
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

/**
 * The key toolsets are de-duplicated by: `<url>|<prefix>` for HTTP servers, the command, its
 * arguments and working directory and the prefix for stdio servers (not the environment).
 */
export function mcpDedupeKey(config: McpServerConfig): string {
  const prefix = config.toolNamePrefix ?? '';
  if (config.type === 'stdio') {
    return `stdio:${JSON.stringify([config.command, config.args, config.cwd ?? '', config.sandbox ?? null])}|${prefix}`;
  }
  return `${config.url}|${prefix}`;
}
