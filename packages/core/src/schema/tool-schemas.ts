import type { z } from 'zod';
import type { JsonSchema, Tool } from '../tool/tool.js';
import { toAnthropicInputSchema } from './anthropic-schema.js';
import { toolJsonSchema } from './canonical-schema.js';
import { toGeminiSchema } from './gemini-schema.js';
import { normalizeStrictInput } from './normalize-strict-input.js';
import { type OpenAISchemaResult, toOpenAIStrictSchema } from './openai-strict.js';

const openAICache = new WeakMap<Tool, OpenAISchemaResult>();
const geminiCache = new WeakMap<Tool, JsonSchema>();
const anthropicCache = new WeakMap<Tool, JsonSchema>();

/** Options for {@link openAIToolSchema}. */
export interface OpenAIToolSchemaOptions {
  /** `true`: strict where lossless (the default); `false`: never strict. */
  strict?: boolean;
}

/**
 * A tool's parameters for OpenAI function calling. With `strict` (the default) the strict form
 * when it is lossless, else the plain schema with `strict: false` and the reason.
 */
export function openAIToolSchema(
  tool: Tool,
  options: OpenAIToolSchemaOptions = {},
): OpenAISchemaResult {
  if (options.strict === false) {
    const { $schema: _dialect, ...schema } = toolJsonSchema(tool);
    return { schema, strict: false, reason: 'strict mode was turned off' };
  }
  let result = openAICache.get(tool);
  if (!result) {
    result = toOpenAIStrictSchema(toolJsonSchema(tool));
    openAICache.set(tool, result);
  }
  return result;
}

/**
 * Turns arguments produced under a tool's strict schema back into what its own schema expects
 * (synthetic `null`s for optional fields removed). A no-op for non-strict schemas.
 */
export function normalizeOpenAIArguments(tool: Tool, args: unknown, strict: boolean): unknown {
  return strict ? normalizeStrictInput(toolJsonSchema(tool), args) : args;
}

/** A tool's `parametersJsonSchema` for Gemini / `@google/adk` function declarations. */
export function geminiToolSchema(tool: Tool): JsonSchema {
  let schema = geminiCache.get(tool);
  if (!schema) {
    schema = toGeminiSchema(toolJsonSchema(tool));
    geminiCache.set(tool, schema);
  }
  return schema;
}

/**
 * A tool's `inputSchema` for the Vercel AI SDK (`jsonSchema(aiSdkToolSchema(tool))`): the
 * canonical JSON Schema without its `$schema` dialect, which each AI SDK provider converts for its
 * own API (the gateway validates the arguments, so the SDK is not asked to).
 */
export function aiSdkToolSchema(tool: Tool): JsonSchema {
  const { $schema: _dialect, ...schema } = toolJsonSchema(tool);
  return schema;
}

/**
 * A tool's `input_schema` for Anthropic's Messages API: an object schema without `$schema` and
 * without top-level `anyOf` / `oneOf` / `allOf` (widened into the object's properties; the
 * gateway still validates against the exact schema).
 */
export function anthropicToolSchema(tool: Tool): JsonSchema {
  let schema = anthropicCache.get(tool);
  if (!schema) {
    schema = toAnthropicInputSchema(toolJsonSchema(tool));
    anthropicCache.set(tool, schema);
  }
  return schema;
}

/**
 * A tool's schema for LangChain `tool()`: the zod object itself for zod tools (validated by
 * zod, converted by the chat model), the JSON Schema without `$schema` for external tools and
 * for recursive zod schemas (`@langchain/core` 1.4 recurses without end on those when it
 * prepares the input; the gateway still validates with zod).
 */
export function langChainToolSchema(tool: Tool): z.ZodObject | JsonSchema {
  if (tool.kind === 'zod' && !JSON.stringify(toolJsonSchema(tool)).includes('"$ref"'))
    return tool.input;
  const { $schema: _dialect, ...schema } = toolJsonSchema(tool);
  return schema;
}
