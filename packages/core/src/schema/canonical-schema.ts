import { z } from 'zod';
import type { JsonSchema, Tool } from '../tool/tool.js';
import { pruneUnreferencedDefinitions } from './prune-definitions.js';

const cache = new WeakMap<Tool, JsonSchema>();

/**
 * The canonical JSON Schema of a tool's input: `z.toJSONSchema(input, { io: 'input' })`
 * (draft 2020-12) for zod tools, the given schema for external tools without the definitions no
 * `$ref` reaches. Cached per tool; treat the result as read-only.
 *
 * @example
 * ```ts
 * const schema = toolJsonSchema(writeNote); // { type: 'object', properties: { … }, required: [ … ] }
 * ```
 */
export function toolJsonSchema(tool: Tool): JsonSchema {
  let schema = cache.get(tool);
  if (!schema) {
    schema =
      tool.kind === 'zod'
        ? (z.toJSONSchema(tool.input, { io: 'input', unrepresentable: 'any' }) as JsonSchema)
        : // Definitions no `$ref` reaches are neither sent nor judged (strictness), for every target.
          pruneUnreferencedDefinitions(tool.inputSchema);
    cache.set(tool, schema);
  }
  return schema;
}
