import path from 'node:path';
import { KsadkError } from '../errors/ksadk-error.js';

/** The environment variable that sets the default isolation of stdio servers. */
export const MCP_STDIO_SANDBOX_ENV = 'KSADK_MCP_STDIO_SANDBOX';

/**
 * How a stdio MCP server is isolated. `'none'`: a plain child process of the host (same user: it
 * can read the host's files and, through `/proc/<ppid>/environ`, the host's environment).
 * `'bubblewrap'` (Linux, `bwrap` on `PATH`): its own PID, IPC, UTS and mount namespaces — it sees
 * no host process, so no host environment — with the system directories and the paths listed
 * here only, no network unless `network`, no capabilities, killed with the host.
 */
export type McpStdioSandboxOption =
  | 'none'
  | 'bubblewrap'
  | {
      readonly type: 'bubblewrap';
      /** Network access (servers that call an API need it). @default false */
      readonly network?: boolean;
      /** Host paths the server may read (its installation, the data it serves). */
      readonly readOnlyPaths?: readonly string[];
      /** Host paths the server may write. */
      readonly writablePaths?: readonly string[];
    };

/** A validated bubblewrap isolation. */
export interface McpStdioSandboxConfig {
  readonly type: 'bubblewrap';
  readonly network: boolean;
  readonly readOnlyPaths: readonly string[];
  readonly writablePaths: readonly string[];
}

/** What a server entry's `sandbox` validates to: `'none'`, bubblewrap, or an error message. */
export function checkStdioSandbox(
  value: unknown,
): 'none' | McpStdioSandboxConfig | { message: string; field?: string } {
  if (value === 'none' || value === false) return 'none';
  if (value === 'bubblewrap' || value === true)
    return { type: 'bubblewrap', network: false, readOnlyPaths: [], writablePaths: [] };
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    return { message: 'must be "none", "bubblewrap" or { "type": "bubblewrap", … }' };
  const entry: Record<string, unknown> = {};
  const wire: Record<string, string> = {
    read_only_paths: 'readOnlyPaths',
    writable_paths: 'writablePaths',
  };
  for (const [key, item] of Object.entries(value)) {
    const option = wire[key] ?? key;
    if (!['type', 'network', 'readOnlyPaths', 'writablePaths'].includes(option))
      return {
        message: `has no field ${JSON.stringify(key.slice(0, 60))} (fields: type, network, read_only_paths, writable_paths)`,
      };
    entry[option] = item;
  }
  if (entry['type'] !== 'bubblewrap') return { message: 'type must be "bubblewrap"' };
  if (entry['network'] !== undefined && typeof entry['network'] !== 'boolean')
    return { message: 'network must be true or false' };
  const paths = (field: string): string[] | { message: string } => {
    const list = entry[field];
    if (list === undefined) return [];
    if (
      !Array.isArray(list) ||
      list.some((item) => typeof item !== 'string' || !path.isAbsolute(item) || item.includes('\0'))
    )
      return { message: `${field} must be a list of absolute paths` };
    if (list.some((item) => path.resolve(item) === '/'))
      return { message: `${field} must not hold / (the whole host)` };
    return list.map((item) => path.resolve(item));
  };
  const readOnlyPaths = paths('readOnlyPaths');
  if (!Array.isArray(readOnlyPaths)) return readOnlyPaths;
  const writablePaths = paths('writablePaths');
  if (!Array.isArray(writablePaths)) return writablePaths;
  return { type: 'bubblewrap', network: entry['network'] === true, readOnlyPaths, writablePaths };
}

/**
 * The default isolation for servers whose entry does not say: `KSADK_MCP_STDIO_SANDBOX`
 * (`none` or `bubblewrap`), else `'none'`.
 *
 * @throws {KsadkError} `invalid_config` for any other value.
 */
export function stdioSandboxFromEnv(env: NodeJS.ProcessEnv = process.env): McpStdioSandboxOption {
  const raw = env[MCP_STDIO_SANDBOX_ENV]?.trim().toLowerCase();
  if (!raw || raw === 'none') return 'none';
  if (raw === 'bubblewrap') return 'bubblewrap';
  throw new KsadkError(
    'invalid_config',
    `${MCP_STDIO_SANDBOX_ENV} must be none or bubblewrap (got ${JSON.stringify(raw.slice(0, 40))})`,
  );
}
