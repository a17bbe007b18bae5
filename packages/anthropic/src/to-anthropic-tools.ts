import type { Tool as AnthropicTool } from '@anthropic-ai/sdk/resources/messages/messages';
import { KsadkError, type Tool } from '@ksadk/core';
import { anthropicToolSchema } from '@ksadk/core/schema';

/**
 * KsADK tools as Anthropic Messages tool definitions: the tool's name (already within Anthropic's
 * `^[a-zA-Z0-9_-]{1,64}$`: every KsADK tool name is sanitised to it, MCP and skill tools included,
 * with the original kept in the gateway's map), its description, and an `input_schema` Anthropic
 * accepts. `cache_control`, `strict` and the rest are the host's to add.
 *
 * @throws {KsadkError} `invalid_config` for two tools with the same name.
 *
 * @example
 * ```ts
 * const message = await client.messages.create({ model, max_tokens: 1024, tools: toAnthropicTools(tools), messages });
 * ```
 */
export function toAnthropicTools(tools: readonly Tool[]): AnthropicTool[] {
  const names = new Set<string>();
  return tools.map((tool) => {
    if (names.has(tool.name))
      throw new KsadkError('invalid_config', `Two tools are named ${tool.name}.`);
    names.add(tool.name);
    return {
      name: tool.name,
      description: tool.description,
      input_schema: anthropicToolSchema(tool) as AnthropicTool.InputSchema,
    };
  });
}
