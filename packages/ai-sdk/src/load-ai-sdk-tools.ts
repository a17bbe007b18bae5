import {
  type AgentToolsLoad,
  type LoadAgentToolsOptions,
  loadAgentTools,
} from '@ksadk/core/catalog';
import type { ToolSet } from 'ai';
import { type AiSdkToolsOptions, toAiSdkTools } from './to-ai-sdk-tools.js';

/**
 * Options for {@link loadAiSdkTools}: core's `loadAgentTools` options — what to assemble, the
 * gateway, and whether sources default from the environment (they do unless `environment: false`)
 * — and where progress goes.
 */
export type LoadAiSdkToolsOptions = LoadAgentToolsOptions & Pick<AiSdkToolsOptions, 'onProgress'>;

/** Assembled tools for the AI SDK: core's load, and its tools as a `ToolSet`. */
export interface AiSdkToolsLoad extends AgentToolsLoad {
  /** The tools as an AI SDK `ToolSet` (own → memory → skills → built-ins → MCP → A2A). */
  readonly toolSet: ToolSet;
}

/**
 * Assembles the tools (own → memory → skills → built-ins → MCP → A2A, environment defaults
 * included) for the AI SDK. Pass `toolSet` as `tools` and `instructions` as (part of) the system
 * prompt; call `close()` when the agent retires.
 *
 * @example
 * ```ts
 * const load = await loadAiSdkTools({ builtins: { profile: 'coding' }, mcp: servers });
 * const result = await generateText({ model, tools: load.toolSet, system: load.instructions, prompt });
 * ```
 */
export async function loadAiSdkTools(options: LoadAiSdkToolsOptions = {}): Promise<AiSdkToolsLoad> {
  const { onProgress, ...loadOptions } = options;
  const load = await loadAgentTools(loadOptions);
  const toolSet = toAiSdkTools(load.tools, {
    gateway: load.gateway,
    ...(onProgress ? { onProgress } : {}),
  });
  return {
    tools: load.tools,
    instructions: load.instructions,
    warnings: load.warnings,
    assembly: load.assembly,
    gateway: load.gateway,
    close: () => load.close(),
    toolSet,
  };
}
