import { checkOptions } from '../errors/check-options.js';
import type { ApprovalStore } from '../gateway/approval/store.js';
import type { ToolGateway } from '../gateway/gateway-types.js';
import { MCP_ENV } from '../mcp/mcp-env.js';
import { MEMORY_ENV } from '../memory/memory-env.js';
import type { SharedMemoryBackend } from '../memory/shared-memory-backend.js';
import type { Tool } from '../tool/tool.js';
import {
  type AgentAssembly,
  ASSEMBLE_OPTIONS,
  type AssembleAgentToolsOptions,
  assembleAgentTools,
} from './assemble-agent-tools.js';
import { BUILTIN_TOOLS_ENV } from './catalog-modes.js';
import { createToolCatalog, isToolCatalog, type ToolCatalog } from './tool-catalog.js';

/** Options for {@link loadAgentTools}: what to assemble, the gateway, and the environment. */
export interface LoadAgentToolsOptions extends AssembleAgentToolsOptions {
  /**
   * The gateway every call goes through.
   * @default `createToolGateway({ env })`, on the shared store `KSADK_APPROVAL_STORE` names (opened here, closed by `close()`)
   */
  gateway?: ToolGateway;
  /**
   * Fill every source left out of the options from its environment variables — built-ins
   * (`KSADK_BUILTIN_TOOLS_MODE`, `KSADK_BUILTIN_TOOLS_PROFILE`), memory (`KSADK_LTM_BACKEND`,
   * `KSADK_LTM_DIR`), skills (`KSADK_SKILLS_MODE` and the skill variables: local skill tools, or
   * `execute_skills` with the skill manifest) and MCP (`KSADK_MCP_SERVERS`,
   * `KSADK_ENABLE_MCP_TOOLS`). `false` reads none.
   * @default true
   */
  environment?: boolean;
  /** The environment to read. @default process.env */
  env?: NodeJS.ProcessEnv;
}

/** What {@link loadAgentTools} loaded: everything an adapter needs to inject. */
export interface AgentToolsLoad {
  /** own → memory → skills → built-ins → MCP → A2A, names unique. */
  readonly tools: readonly Tool[];
  /** Text to add to the agent's instructions (the skill manifest), or `''`. */
  readonly instructions: string;
  /** Every clash, skipped source, configuration problem and overridden variable. */
  readonly warnings: readonly string[];
  readonly assembly: AgentAssembly;
  readonly gateway: ToolGateway;
  /** Releases MCP sessions (and anything else the load opened). Call when the agent retires. */
  close(): Promise<void>;
}

const set = (env: NodeJS.ProcessEnv, name: string): boolean => Boolean(env[name]?.trim());

/**
 * The gateway a load makes when the caller brings none, on the shared approval store
 * `KSADK_APPROVAL_STORE` names (opened here, closed by the load's `close()`). Loaded only then.
 */
async function defaultGateway(
  env: NodeJS.ProcessEnv,
): Promise<{ gateway: ToolGateway; ownStore: ApprovalStore | undefined }> {
  const [{ createToolGateway }, { approvalStoreFromEnv }] = await Promise.all([
    import('../gateway/create-tool-gateway.js'),
    import('../gateway/approval/store-from-env.js'),
  ]);
  const ownStore = await approvalStoreFromEnv(env);
  try {
    return {
      gateway: createToolGateway({ env, ...(ownStore ? { approvalStore: ownStore } : {}) }),
      ownStore,
    };
  } catch (error) {
    await ownStore?.close?.();
    throw error;
  }
}

/** The variables that decide the skills slot. */
const SKILLS_ENV = [
  'KSADK_SKILLS_MODE',
  'KSADK_SKILL_RUNTIME_BACKEND',
  'KSADK_LOCAL_SKILLS_DIR',
] as const;

/**
 * The one loader every adapter calls when an agent loads (never per request): the assembly
 * (own → memory → skills → built-ins → MCP → A2A), defaults for every source from the
 * environment — the same way in every framework — the instructions, the gateway and `close`.
 * An option always wins over its variable; when both are given, a warning says the variable was
 * overridden.
 *
 * @example
 * ```ts
 * const load = await loadAgentTools({ tools: [writeNote] }); // + KSADK_MCP_SERVERS, KSADK_LTM_BACKEND…
 * console.log(load.warnings);
 * ```
 */
export async function loadAgentTools(options: LoadAgentToolsOptions = {}): Promise<AgentToolsLoad> {
  checkOptions(
    options,
    { ...ASSEMBLE_OPTIONS, environment: true, env: true },
    "loadAgentTools() (and the adapters' loaders)",
  );
  const { gateway: given, environment = true, env = process.env, ...assemble } = options;
  // A shared approval store named by KSADK_APPROVAL_STORE is opened here, and closed by close().
  const { gateway, ownStore } = given
    ? { gateway: given, ownStore: undefined }
    : await defaultGateway(env);
  const warnings: string[] = [];
  const overridden = (option: string, variables: readonly string[]): void => {
    for (const name of variables)
      if (set(env, name)) warnings.push(`${name} is set but the ${option} option overrides it`);
  };
  // What this load opened, closed again (newest first) when a later step fails.
  const opened: (() => Promise<unknown> | undefined)[] = [];
  if (ownStore) opened.push(() => ownStore.close?.());
  let ownCatalog: ToolCatalog | undefined;
  let ownMemory: SharedMemoryBackend | undefined;
  let assembly: AgentAssembly;
  try {
    ownCatalog = isToolCatalog(assemble.catalog)
      ? undefined
      : createToolCatalog({ env, ...(assemble.catalog ?? {}) });
    const catalog = ownCatalog;
    if (catalog) opened.push(() => catalog.close());
    const options_: AssembleAgentToolsOptions = {
      ...assemble,
      catalog: ownCatalog ?? (assemble.catalog as ToolCatalog),
      gateway,
    };

    if (assemble.builtins !== undefined) overridden('builtins', Object.values(BUILTIN_TOOLS_ENV));
    else if (!environment) options_.builtins = false;

    if (assemble.memory !== undefined)
      overridden('memory', [MEMORY_ENV.backend, MEMORY_ENV.dir, MEMORY_ENV.url]);
    else if (environment) {
      const { memoryToolsetFromEnv } = await import('../memory/tools/index.js');
      const memory = memoryToolsetFromEnv({ env });
      warnings.push(...memory.problems);
      if (memory.tools.length > 0) options_.memory = memory.tools;
      // A server-backed memory connects now, so a missing package or server fails the load, not a call.
      if (memory.memory && 'ready' in memory.memory) {
        const shared = memory.memory as SharedMemoryBackend;
        opened.push(() => shared.close());
        await shared.ready();
        ownMemory = shared;
      }
    }

    if (assemble.skills !== undefined) overridden('skills', [...SKILLS_ENV]);
    else if (environment) {
      // Loaded only when the environment is read: skills bring a YAML parser and a zip reader.
      const { skillsSlotFromEnv } = await import('../skills/tools/index.js');
      const slot = await skillsSlotFromEnv({ env });
      warnings.push(...slot.warnings);
      if (slot.tools.length > 0)
        options_.skills = { tools: slot.tools, instructions: slot.instructions };
    }

    if (assemble.mcp !== undefined) overridden('mcp', [MCP_ENV.servers]);
    else if (environment) {
      const { loadMcpToolsetsFromEnv } = await import('../mcp/load-mcp-toolsets.js');
      const fromEnvMcp = await loadMcpToolsetsFromEnv({
        env,
        strict: assemble.strict ?? false,
        ...(assemble.mcpClient ?? {}),
        gateway,
      });
      opened.push(() => fromEnvMcp.close());
      options_.mcp = fromEnvMcp;
    }

    assembly = await assembleAgentTools(options_);
  } catch (error) {
    for (const close of opened.reverse()) {
      try {
        await close();
      } catch {
        // The load's own failure is the one to report.
      }
    }
    throw error;
  }
  const all = Object.freeze([...warnings, ...assembly.warnings]);
  return {
    tools: assembly.tools,
    instructions: assembly.instructions,
    warnings: all,
    assembly,
    gateway,
    close: async () => {
      await assembly.close();
      await ownCatalog?.close();
      await ownStore?.close?.();
      await ownMemory?.close();
    },
  };
}
