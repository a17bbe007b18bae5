import {
  type AgentToolsLoad,
  type LoadAgentToolsOptions,
  loadAgentTools,
} from '@ksadk/core/catalog';
import {
  type OpenAIAgentsTool,
  type OpenAIAgentsToolsOptions,
  toOpenAIAgentsTools,
} from './to-openai-agents-tools.js';

/**
 * Options for {@link loadOpenAIAgentsTools}: core's `loadAgentTools` options — what to assemble,
 * the gateway, and whether sources default from the environment (they do unless
 * `environment: false`) — and where progress goes.
 */
export type LoadOpenAIAgentsToolsOptions = LoadAgentToolsOptions &
  Pick<OpenAIAgentsToolsOptions, 'onProgress'>;

/** Assembled tools for the OpenAI Agents SDK: core's load, and its tools as SDK function tools. */
export interface OpenAIAgentsToolsLoad extends AgentToolsLoad {
  /** The tools as SDK function tools, for `new Agent({ tools })` (own → memory → skills → built-ins → MCP → A2A). */
  readonly agentTools: OpenAIAgentsTool[];
}

/**
 * Assembles the tools (own → memory → skills → built-ins → MCP → A2A, environment defaults
 * included) for the OpenAI Agents SDK. Pass `agentTools` as the agent's `tools` and `instructions`
 * as (part of) its instructions; call `close()` when the agent retires. MCP servers come in as
 * KsADK toolsets, guarded like every other tool — give them here, not as the SDK's `mcpServers`.
 *
 * @example
 * ```ts
 * const load = await loadOpenAIAgentsTools({ builtins: { profile: 'coding' }, mcp: servers });
 * const agent = new Agent({ name: 'coder', instructions: load.instructions, tools: load.agentTools });
 * ```
 */
export async function loadOpenAIAgentsTools(
  options: LoadOpenAIAgentsToolsOptions = {},
): Promise<OpenAIAgentsToolsLoad> {
  const { onProgress, ...loadOptions } = options;
  const load = await loadAgentTools(loadOptions);
  try {
    const agentTools = toOpenAIAgentsTools(load.tools, {
      gateway: load.gateway,
      ...(onProgress ? { onProgress } : {}),
    });
    return { ...load, close: () => load.close(), agentTools };
  } catch (error) {
    await load.close();
    throw error;
  }
}
