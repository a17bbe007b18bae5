import { type ApprovalPrincipal, createToolGateway, sharedStoresFromEnv } from '@ksadk/core';
import { loadMcpToolsetsFromEnv } from '@ksadk/core/mcp';
import { createSkillToolset } from '@ksadk/core/skills';
import { type ServedKsadkConsole, serveKsadkConsole } from './serve-ksadk-console.js';

/** Options for {@link serveKsadkConsoleFromEnv}. */
export interface KsadkConsoleFromEnvOptions {
  /** The environment to read `KSADK_*` variables from. @default process.env */
  readonly env?: NodeJS.ProcessEnv;
  /** The shared store's URL (`redis://…`, `postgres://…`). @default `KSADK_APPROVAL_STORE` */
  readonly store?: string;
  /** Whose requests and calls to show. @default `{ accountId: '' }` (the default account) */
  readonly principal?: ApprovalPrincipal;
  /** A skills folder to show. @default `KSADK_LOCAL_SKILLS_DIR`, and the configured skill spaces */
  readonly skillsDir?: string;
  /** @default 0 (a free port) */
  readonly port?: number;
}

/** A console started from the environment, and what it found there. */
export interface KsadkConsoleFromEnv extends ServedKsadkConsole {
  /** Whether it reads shared stores (`false`: only its own, empty, in-memory one). */
  readonly shared: boolean;
  /** Problems worth telling the operator (an MCP server that could not start…). */
  readonly warnings: readonly string[];
}

/**
 * The console on the stores your agents share — what `ksadk-console` and `ksadk console` start:
 * the approval, execution and credential stores `KSADK_APPROVAL_STORE` (or `store`) names, the
 * result store of `KSADK_TOOL_RESULT_DIR`, local skills and skill spaces, the MCP servers of
 * `KSADK_MCP_SERVERS`; on 127.0.0.1, behind the token in its `url`. `close()` stops the console,
 * the MCP servers it started and the stores' connections.
 *
 * @throws {KsadkError} `invalid_config` for a bad store URL (its password never repeated); `setup`
 * when the store's package is not installed.
 *
 * @example
 * ```ts
 * const console = await serveKsadkConsoleFromEnv({ principal: { admin: true } });
 * process.stdout.write(`${console.url}\n`);
 * ```
 */
export async function serveKsadkConsoleFromEnv(
  options: KsadkConsoleFromEnvOptions = {},
): Promise<KsadkConsoleFromEnv> {
  const base = options.env ?? process.env;
  const env = options.store ? { ...base, KSADK_APPROVAL_STORE: options.store } : base;
  const warnings: string[] = [];
  const stores = await sharedStoresFromEnv(env);
  if (!stores)
    warnings.push(
      'No shared store (KSADK_APPROVAL_STORE or --store): this console sees only its own, empty, in-memory store. Point it at the Redis or PostgreSQL store your agents use.',
    );
  const opened: (() => Promise<unknown>)[] = [];
  if (stores) opened.push(() => stores.close());
  try {
    const gateway = createToolGateway({
      env,
      ...(stores
        ? {
            approvalStore: stores.approvalStore,
            executions: { store: stores.executionStore },
            ...(env['KSADK_CREDENTIAL_KEY']
              ? { credentials: { store: stores.credentialStore } }
              : {}),
          }
        : {}),
    });
    const skills = (
      await createSkillToolset({
        env,
        runtime: false,
        ...(options.skillsDir ? { localDir: options.skillsDir } : {}),
      })
    ).library;
    const mcp = env['KSADK_MCP_SERVERS'] ? await loadMcpToolsetsFromEnv({ env }) : undefined;
    if (mcp) opened.push(() => mcp.close());
    for (const problem of mcp?.problems ?? []) warnings.push(`MCP: ${problem}`);
    const served = await serveKsadkConsole({
      gateway,
      principal: options.principal ?? { accountId: '' },
      port: options.port ?? 0,
      ...(skills.hasLocal || skills.hasRemote ? { skills } : {}),
      ...(mcp ? { mcpServers: [...mcp.toolsets, ...mcp.unavailable] } : {}),
    });
    return {
      ...served,
      shared: stores !== undefined,
      warnings,
      close: async () => {
        await served.close();
        for (const close of opened.reverse()) await close().catch(() => undefined);
      },
    };
  } catch (error) {
    for (const close of opened.reverse()) await close().catch(() => undefined);
    throw error;
  }
}
