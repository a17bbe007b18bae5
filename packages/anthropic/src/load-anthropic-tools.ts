import type { Tool as AnthropicTool } from '@anthropic-ai/sdk/resources/messages/messages';
import {
  type AgentToolsLoad,
  type LoadAgentToolsOptions,
  loadAgentTools,
} from '@ksadk/core/catalog';
import { toAnthropicTools } from './to-anthropic-tools.js';

/**
 * Options for {@link loadAnthropicTools}: core's `loadAgentTools` options — what to assemble, the
 * gateway, and whether sources default from the environment (they do unless `environment: false`).
 */
export type LoadAnthropicToolsOptions = LoadAgentToolsOptions;

/** Assembled tools for Claude: core's load, and the tools as Messages API definitions. */
export interface AnthropicToolsLoad extends AgentToolsLoad {
  /** The tools as Anthropic tool definitions (own → memory → skills → built-ins → MCP → A2A). */
  readonly definitions: ReturnType<typeof toAnthropicTools>;
}

/**
 * Assembles the tools (own → memory → skills → built-ins → MCP → A2A, environment defaults
 * included) for Anthropic's Messages API. Pass `tools` and `gateway` to `createToolLoop` (or
 * `definitions` to `messages.create` and `tools` to `runToolUses`), `instructions` as the system
 * prompt; call `close()` when the agent retires.
 *
 * @example
 * ```ts
 * const { tools, gateway, instructions } = await loadAnthropicTools({ builtins: { profile: 'coding' } });
 * const loop = createToolLoop(new Anthropic(), { model, tools, gateway, system: instructions });
 * ```
 */
export async function loadAnthropicTools(
  options: LoadAnthropicToolsOptions = {},
): Promise<AnthropicToolsLoad> {
  const load = await loadAgentTools(options);
  const definitions: AnthropicTool[] = toAnthropicTools(load.tools);
  return {
    tools: load.tools,
    instructions: load.instructions,
    warnings: load.warnings,
    assembly: load.assembly,
    gateway: load.gateway,
    close: () => load.close(),
    definitions,
  };
}
