import type { A2AClientOptions } from '../a2a/a2a-client.js';
import { checkOptions, type OptionKeys } from '../errors/check-options.js';
import type { ToolGateway } from '../gateway/gateway-types.js';
import type { McpLoadResult } from '../mcp/load-mcp-toolsets.js';
import type { McpServerOptions, McpServersObject } from '../mcp/mcp-config.js';
import type { McpServerRequestOptions } from '../mcp/mcp-server-requests.js';
import type { MemoryToolsetOptions } from '../memory/tools/index.js';
import type { RiskLevel } from '../tool/policy.js';
import type { Tool } from '../tool/tool.js';
import { modelSafeErrorMessage } from '../util/sanitize-message.js';
import {
  createToolCatalog,
  isToolCatalog,
  type ToolCatalog,
  type ToolCatalogOptions,
} from './tool-catalog.js';

/** Where a tool of an assembly came from, in load order. */
export type ToolSource = 'own' | 'memory' | 'skills' | 'builtin' | 'mcp' | 'a2a';

/** A remote A2A agent to offer as a tool. */
export interface A2AAgentConfig extends A2AClientOptions {
  name?: string;
  description?: string;
  riskLevel?: RiskLevel;
}

/** The Skill Runtime slot: tools and the instruction text (a skill manifest) they come with. */
export interface SkillsSlot {
  tools: readonly Tool[];
  instructions?: string;
}

/** Options for {@link assembleAgentTools}. */
export interface AssembleAgentToolsOptions {
  /** The agent's own KsADK tools; they come first and win every name clash. */
  tools?: readonly Tool[];
  /** Memory and knowledge-base tools: backends, ready tools, or `false`. @default none */
  memory?: MemoryToolsetOptions | readonly Tool[] | false;
  /** The Skill Runtime slot. @default none */
  skills?: SkillsSlot | false;
  /**
   * Built-in tools: a selection (`mode`, `profile`, `include`) from the catalogue, or `false`.
   * @default `KSADK_BUILTIN_TOOLS_MODE` / `KSADK_BUILTIN_TOOLS_PROFILE` (off unless set)
   */
  builtins?: { mode?: string; profile?: string; include?: string | readonly string[] } | false;
  /** The catalogue built-ins come from (and where MCP and A2A tools are registered). @default a new one */
  catalog?: ToolCatalog | ToolCatalogOptions;
  /**
   * MCP servers (validated per entry) — a list or the Claude Desktop / Cursor `{ mcpServers }`
   * object —, toolsets already loaded, or `false`. @default none
   */
  mcp?: readonly McpServerOptions[] | McpServersObject | McpLoadResult | false;
  /**
   * What MCP servers may ask of this client mid-call — elicitation through the adapter's pause, a
   * sampler, roots — plus their log messages and progress timeouts. Applies to the servers of `mcp`
   * and of `KSADK_MCP_SERVERS`. @default none of them (no capability declared)
   */
  mcpClient?: McpServerRequestOptions;
  /**
   * The gateway whose credential store holds the users' tokens for MCP servers with `oauth`
   * (`loadAgentTools` passes its own).
   */
  gateway?: ToolGateway;
  /** Remote A2A agents to offer as tools. @default none */
  a2a?: readonly A2AAgentConfig[];
  /** Fail on any configuration problem instead of reporting it. @default false */
  strict?: boolean;
}

/** The tools an adapter injects at load time, in order. */
export interface AgentAssembly {
  /** own → memory → skills → built-ins → MCP → A2A; names unique (earlier wins). */
  readonly tools: readonly Tool[];
  /** Where each tool came from. */
  readonly sources: Readonly<Record<string, ToolSource>>;
  /** Text to add to the agent's instructions (the skill manifest), or `''`. */
  readonly instructions: string;
  /** Every name clash, skipped toolset and configuration problem. */
  readonly warnings: readonly string[];
  /** The catalogue (with MCP and A2A tools registered, for `tool_search` and the dispatcher). */
  readonly catalog: ToolCatalog;
  /**
   * Tools for one request from names `tool_search` returned (deferred loading): only names this
   * assembly's catalogue allows, unknown ones skipped one by one. Never changes `tools`.
   */
  selectDeferredTools(names: readonly string[]): { tools: Tool[]; skipped: string[] };
  /** Releases MCP sessions (and anything else the assembly opened). */
  close(): Promise<void>;
}

/** The option names of {@link assembleAgentTools}. */
export const ASSEMBLE_OPTIONS = {
  tools: true,
  memory: true,
  skills: true,
  builtins: true,
  catalog: true,
  mcp: true,
  mcpClient: true,
  gateway: true,
  a2a: true,
  strict: true,
} as const satisfies OptionKeys<AssembleAgentToolsOptions>;

/**
 * Builds the ordered tool list an adapter injects when an agent loads (never per request): the
 * agent's own tools, memory, the skill runtime slot, built-ins, MCP toolsets, A2A agents. A
 * later tool whose name is already taken is left out, and every clash, skipped toolset and
 * configuration problem is reported in `warnings` — nothing is swallowed.
 *
 * @example
 * ```ts
 * const assembly = await assembleAgentTools({ tools: [myTool], builtins: { profile: 'coding' }, mcp: [{ name: 'docs', url }] });
 * ```
 */
export async function assembleAgentTools(
  options: AssembleAgentToolsOptions = {},
): Promise<AgentAssembly> {
  checkOptions(options, ASSEMBLE_OPTIONS, 'assembleAgentTools()');
  if (options.builtins)
    checkOptions(
      options.builtins,
      { mode: true, profile: true, include: true },
      'the builtins option',
    );
  const warnings: string[] = [];
  const catalog = isToolCatalog(options.catalog)
    ? options.catalog
    : createToolCatalog(options.catalog ?? {});
  const ordered: Tool[] = [];
  const sources: Record<string, ToolSource> = {};
  const add = (tools: readonly Tool[], source: ToolSource): void => {
    for (const tool of tools) {
      const holder = sources[tool.name];
      if (holder !== undefined) {
        warnings.push(
          `${source} tool ${tool.name} is left out: the name is taken by a ${holder} tool loaded earlier`,
        );
        continue;
      }
      sources[tool.name] = source;
      ordered.push(tool);
    }
  };
  const closers: (() => Promise<void>)[] = [];
  // A catalogue the assembly made is the assembly's to close (its sandbox sessions).
  if (!isToolCatalog(options.catalog)) closers.push(() => catalog.close());
  warnings.push(...catalog.problems);

  add(options.tools ?? [], 'own');

  if (options.memory) {
    const memoryTools = Array.isArray(options.memory)
      ? options.memory
      : (await import('../memory/tools/index.js')).createMemoryToolset(
          options.memory as MemoryToolsetOptions,
        );
    catalog.registerToolset('memory', memoryTools);
    add(memoryTools, 'memory');
  }

  let instructions = '';
  if (options.skills) {
    catalog.registerToolset('skill', options.skills.tools);
    add(options.skills.tools, 'skills');
    instructions = options.skills.instructions?.trim() ?? '';
  }

  if (options.builtins !== false) {
    try {
      // The catalogue's own memory and skill groups were added above, in their own slots.
      add(
        builtinToolsOf(catalog, options.builtins).filter(
          (tool) => sources[tool.name] === undefined || sources[tool.name] === 'own',
        ),
        'builtin',
      );
    } catch (error) {
      if (options.strict) throw error;
      warnings.push(`built-in tools skipped: ${modelSafeErrorMessage(error)}`);
    }
  }

  const mcp = options.mcp;
  if (mcp && (isLoadResult(mcp) || !Array.isArray(mcp) || mcp.length > 0)) {
    const loaded: McpLoadResult = isLoadResult(mcp)
      ? mcp
      : await (await import('../mcp/load-mcp-toolsets.js')).loadMcpToolsets(mcp, {
          strict: options.strict ?? false,
          ...(options.mcpClient ?? {}),
          ...(options.gateway ? { gateway: options.gateway } : {}),
        });
    closers.push(loaded.close);
    warnings.push(...loaded.problems);
    catalog.registerExternalTools(loaded.tools);
    add(loaded.tools, 'mcp');
  }

  for (const agent of options.a2a ?? []) {
    const tool = await a2aToolOf(agent, options.strict ?? false, warnings);
    if (!tool) continue;
    catalog.registerExternalTools([tool]);
    add([tool], 'a2a');
  }

  const tools = Object.freeze([...ordered]);
  const builtinProfile = options.builtins ? (options.builtins.profile ?? 'default') : 'coding';
  return {
    tools,
    sources: Object.freeze({ ...sources }),
    instructions,
    warnings: Object.freeze([...warnings]),
    catalog,
    selectDeferredTools: deferredSelection(tools, catalog, builtinProfile),
    async close() {
      await Promise.allSettled(closers.map((close) => close()));
    },
  };
}

/** The built-in tools: from the environment when the option is absent, else as it says. */
function builtinToolsOf(
  catalog: ToolCatalog,
  builtins: Exclude<AssembleAgentToolsOptions['builtins'], false>,
): Tool[] {
  if (builtins === undefined) return catalog.builtinToolsFromEnv();
  return catalog.getTools({
    mode: builtins.mode ?? 'direct',
    profile: builtins.profile ?? 'default',
    ...(builtins.include !== undefined ? { include: builtins.include } : {}),
  });
}

/** A remote agent as a tool, or `undefined` (reported in `warnings`) when its card cannot be read. */
async function a2aToolOf(
  agent: A2AAgentConfig,
  strict: boolean,
  warnings: string[],
): Promise<Tool | undefined> {
  try {
    const [{ createA2AAgentTool }, { createA2AClient }] = await Promise.all([
      import('../a2a/a2a-agent-tool.js'),
      import('../a2a/a2a-client.js'),
    ]);
    return await createA2AAgentTool({
      client: createA2AClient(agent),
      ...(agent.name ? { name: agent.name } : {}),
      ...(agent.description ? { description: agent.description } : {}),
      ...(agent.riskLevel ? { riskLevel: agent.riskLevel } : {}),
    });
  } catch (error) {
    if (strict) throw error;
    warnings.push(
      `A2A agent at ${new URL(agent.url).host} skipped: ${modelSafeErrorMessage(error)}`,
    );
    return undefined;
  }
}

/** `selectDeferredTools`: the assembly's tools, then what tool_search may offer (the profile's built-ins, runnable external tools). */
function deferredSelection(
  tools: readonly Tool[],
  catalog: ToolCatalog,
  profile: string,
): AgentAssembly['selectDeferredTools'] {
  return (names) => {
    const offered = new Map(
      [...catalog.getTools({ profile }), ...catalog.externalTools()].map((tool) => [
        tool.name,
        tool,
      ]),
    );
    const selected: Tool[] = [];
    const skipped: string[] = [];
    for (const name of new Set(names)) {
      const tool = tools.find((candidate) => candidate.name === name) ?? offered.get(name);
      if (tool) selected.push(tool);
      else skipped.push(name);
    }
    return { tools: selected, skipped };
  };
}

function isLoadResult(value: unknown): value is McpLoadResult {
  return (
    typeof value === 'object' &&
    value !== null &&
    !Array.isArray(value) &&
    Array.isArray((value as McpLoadResult).toolsets)
  );
}
