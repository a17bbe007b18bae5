import {
  type AgentToolsLoad,
  type LoadAgentToolsOptions,
  loadAgentTools,
} from '@ksadk/core/catalog';

/**
 * Options for {@link loadOpenAITools}: core's `loadAgentTools` options — what to assemble, the
 * gateway, and whether sources default from the environment (they do unless `environment: false`).
 */
export type LoadOpenAIToolsOptions = LoadAgentToolsOptions;

/** Assembled tools for OpenAI function calling: core's load, unchanged (KsADK tools in order). */
export type OpenAIToolsLoad = AgentToolsLoad;

/**
 * Assembles the tools (own → memory → skills → built-ins → MCP → A2A) for OpenAI function calling.
 * Pass `tools` and `gateway` to {@link createToolLoop}, and `instructions` as its `instructions`.
 */
export async function loadOpenAITools(
  options: LoadOpenAIToolsOptions = {},
): Promise<OpenAIToolsLoad> {
  return loadAgentTools(options);
}
