import { readFile } from 'node:fs/promises';
import { userInfo } from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import type { Tool as KsadkTool } from '@ksadk/core';
import { loadAgentTools } from '@ksadk/core/catalog';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { createKsadkMcpServer } from './create-ksadk-mcp-server.js';
import { serveKsadkMcpHttp } from './http-server.js';
import { isReadOnly } from './tool-listing.js';

const HELP = `ksadk-mcp: KsADK tools served over MCP (stdio, or --http), every call through the guarded gateway.

Options:
  --workspace DIR     the folder the file tools are confined to
  --skills DIR        a folder of skills, one per sub-folder (KSADK_LOCAL_SKILLS_DIR)
  --sandbox BACKEND   where code runs: bubblewrap, local, e2b (KSADK_SANDBOX_BACKEND)
  --include LIST      built-in tools and groups, comma-separated (focused, execute_skills, …);
                      with --workspace and no other selection: focused
  --profile NAME      a built-in tools profile (KSADK_BUILTIN_TOOLS_PROFILE)
  --read-only         serve only low-risk tools without side effects
  --http PORT         serve Streamable HTTP on 127.0.0.1:PORT (0: any free port) instead of
                      stdio; clients send the token it prints as "Authorization: Bearer …"
  --approval-wait S   how long a call waits for a decision made outside the client (default 300)
  --config FILE       a JSON file with any of the options above (camelCase keys)
  --help              this text

Every other setting comes from the KSADK_* environment, as everywhere in KsADK.`;

/** What the command line (or its JSON config) says. */
interface CliOptions {
  workspace?: string;
  skills?: string;
  sandbox?: string;
  include?: string;
  profile?: string;
  readOnly?: boolean;
  approvalWait?: number;
  http?: number;
}

const CONFIG_KEYS = new Set([
  'workspace',
  'skills',
  'sandbox',
  'include',
  'profile',
  'readOnly',
  'approvalWait',
]);

async function optionsOf(argv: readonly string[]): Promise<CliOptions | 'help'> {
  const { values } = parseArgs({
    args: [...argv],
    strict: true,
    options: {
      workspace: { type: 'string' },
      skills: { type: 'string' },
      sandbox: { type: 'string' },
      include: { type: 'string' },
      profile: { type: 'string' },
      'read-only': { type: 'boolean' },
      'approval-wait': { type: 'string' },
      http: { type: 'string' },
      config: { type: 'string' },
      help: { type: 'boolean' },
    },
  });
  if (values.help) return 'help';
  let config: Record<string, unknown> = {};
  if (values.config) {
    const parsed: unknown = JSON.parse(await readFile(values.config, 'utf8'));
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed))
      throw new Error(`${values.config} is not a JSON object.`);
    config = parsed as Record<string, unknown>;
    for (const key of Object.keys(config))
      if (!CONFIG_KEYS.has(key)) throw new Error(`${values.config}: unknown option "${key}".`);
  }
  const text = (key: string, given: string | undefined): string | undefined => {
    const value = given ?? config[key];
    if (value !== undefined && typeof value !== 'string')
      throw new Error(`${key} must be a string.`);
    return value;
  };
  const wait = values['approval-wait'] ?? config['approvalWait'];
  const approvalWait = wait === undefined ? undefined : Number(wait);
  if (approvalWait !== undefined && !(approvalWait > 0 && approvalWait <= 86_400))
    throw new Error('--approval-wait must be a number of seconds from 1 to 86400.');
  const readOnly = values['read-only'] ?? config['readOnly'];
  const port = values.http ?? config['http'];
  const http = port === undefined ? undefined : Number(port);
  if (http !== undefined && !(Number.isInteger(http) && http >= 0 && http <= 65_535))
    throw new Error('--http must be a port number from 0 to 65535.');
  return {
    ...(text('workspace', values.workspace) !== undefined
      ? { workspace: text('workspace', values.workspace) }
      : {}),
    ...(text('skills', values.skills) !== undefined
      ? { skills: text('skills', values.skills) }
      : {}),
    ...(text('sandbox', values.sandbox) !== undefined
      ? { sandbox: text('sandbox', values.sandbox) }
      : {}),
    ...(text('include', values.include) !== undefined
      ? { include: text('include', values.include) }
      : {}),
    ...(text('profile', values.profile) !== undefined
      ? { profile: text('profile', values.profile) }
      : {}),
    ...(readOnly === true ? { readOnly: true } : {}),
    ...(approvalWait !== undefined ? { approvalWait } : {}),
    ...(http !== undefined ? { http } : {}),
  };
}

/** The local user's name (the stdio server's one user), or `local` where the system has none. */
function localUser(): string {
  try {
    return userInfo().username || 'local';
  } catch {
    return 'local';
  }
}

/**
 * The built-in tools to serve: `--include`, or — for a workspace with no selection anywhere (no
 * `--include`, `--profile` or `KSADK_BUILTIN_TOOLS_*`) — the focused workspace tools.
 */
function includeOf(options: CliOptions, env: NodeJS.ProcessEnv): string | undefined {
  if (options.include) return options.include;
  const selected = ['KSADK_BUILTIN_TOOLS_PROFILE', 'KSADK_BUILTIN_TOOLS_MODE'].some((name) =>
    env[name]?.trim(),
  );
  return options.workspace && !selected ? 'focused' : undefined;
}

/** The environment the options stand for, over the process's own. */
function environmentOf(options: CliOptions): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env };
  // Results and sessions are kept under the project (the workspace, unless one is configured).
  if (options.workspace && !env['KSADK_PROJECT_DIR']?.trim())
    env['KSADK_PROJECT_DIR'] = path.resolve(options.workspace);
  if (options.skills) env['KSADK_LOCAL_SKILLS_DIR'] = path.resolve(options.skills);
  if (options.sandbox) env['KSADK_SANDBOX_BACKEND'] = options.sandbox;
  if (options.profile) env['KSADK_BUILTIN_TOOLS_PROFILE'] = options.profile;
  return env;
}

/**
 * `ksadk-mcp`: loads the catalogue the options and the environment describe, serves it over stdio
 * as the local user, and returns the exit code when the client goes away (stdin ends): every
 * sandbox and MCP child it started is stopped first. Diagnostics go to stderr (stdout is the
 * protocol).
 */
export async function main(argv: readonly string[]): Promise<number> {
  let options: CliOptions | 'help';
  try {
    options = await optionsOf(argv);
  } catch (error) {
    process.stderr.write(`ksadk-mcp: ${(error as Error).message}\n${HELP}\n`);
    return 2;
  }
  if (options === 'help') {
    process.stdout.write(`${HELP}\n`);
    return 0;
  }
  const env = environmentOf(options);
  const load = await loadAgentTools({
    env,
    ...(options.workspace
      ? { catalog: { env, workspace: { root: path.resolve(options.workspace) } } }
      : {}),
    ...(includeOf(options, env) ? { builtins: { include: includeOf(options, env) } } : {}),
  });
  for (const warning of load.warnings) process.stderr.write(`ksadk-mcp: ${warning}\n`);
  const tools: readonly KsadkTool[] = options.readOnly ? load.tools.filter(isReadOnly) : load.tools;
  const served = {
    tools,
    gateway: load.gateway,
    principal: { userId: localUser() },
    instructions: load.instructions,
    ...(options.approvalWait ? { approvals: { waitMs: options.approvalWait * 1000 } } : {}),
  };
  if (options.http !== undefined) {
    const { url, token, close } = await serveKsadkMcpHttp({ ...served, port: options.http });
    process.stderr.write(`ksadk-mcp: MCP at ${url}\nksadk-mcp: token ${token}\n`);
    await new Promise<void>((resolve) => {
      for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, () => resolve());
    });
    await close();
  } else {
    const server = createKsadkMcpServer(served);
    const closed = new Promise<void>((resolve) => {
      server.onclose = resolve;
      process.stdin.once('end', resolve);
    });
    await server.connect(new StdioServerTransport());
    await closed;
    await server.close().catch(() => undefined);
  }
  await load.close();
  return 0;
}
