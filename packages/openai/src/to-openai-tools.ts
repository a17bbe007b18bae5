import type { Tool } from '@ksadk/core';
import { checkOptions } from '@ksadk/core/adapter';
import { openAIToolSchema } from '@ksadk/core/schema';
import type { ChatCompletionFunctionTool } from 'openai/resources/chat/completions';
import type { FunctionTool } from 'openai/resources/responses/responses';

/** Which OpenAI API the definitions are for. */
export type OpenAIApi = 'chat' | 'responses';

/** Options for {@link toOpenAITools}. */
export interface OpenAIToolsOptions<TApi extends OpenAIApi = OpenAIApi> {
  /** `chat` (Chat Completions, nested `function`) or `responses` (flat). */
  api: TApi;
  /** Strict schemas where lossless (the default); `false` never sends strict. */
  strict?: boolean;
}

/** The definition type for each API. */
export type OpenAIToolDefinition<TApi extends OpenAIApi> = TApi extends 'chat'
  ? ChatCompletionFunctionTool
  : FunctionTool;

/**
 * Converts KsADK tools into OpenAI function tool definitions, in order. Each schema is in
 * strict form when that is lossless; otherwise it is sent with `strict: false` (the reason is
 * available from `openAIToolSchema`). Run the model's calls with {@link runToolCalls} using the
 * same `strict` option, so strict-mode nulls are turned back into absent fields.
 *
 * @example
 * ```ts
 * const tools = toOpenAITools([readNote, writeNote], { api: 'chat' });
 * const completion = await client.chat.completions.create({ model: 'gpt-4.1-mini', messages, tools });
 * ```
 */
export function toOpenAITools<TApi extends OpenAIApi>(
  tools: readonly Tool[],
  options: OpenAIToolsOptions<TApi>,
): OpenAIToolDefinition<TApi>[] {
  checkOptions(options, { api: true, strict: true }, 'toOpenAITools()');
  return tools.map((tool) => {
    const { schema, strict } = openAIToolSchema(
      tool,
      options.strict === false ? { strict: false } : {},
    );
    if (options.api === 'chat') {
      const definition: ChatCompletionFunctionTool = {
        type: 'function',
        function: { name: tool.name, description: tool.description, parameters: schema, strict },
      };
      return definition as OpenAIToolDefinition<TApi>;
    }
    const definition: FunctionTool = {
      type: 'function',
      name: tool.name,
      description: tool.description,
      parameters: schema,
      strict,
    };
    return definition as OpenAIToolDefinition<TApi>;
  });
}
