import type { JsonSchema } from '../tool/tool.js';

const COMBINATORS = ['anyOf', 'oneOf', 'allOf'] as const;

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * A JSON Schema as Anthropic's Messages API takes a tool's `input_schema`: an object schema
 * without a `$schema` dialect and without `anyOf` / `oneOf` / `allOf` at its top (the API refuses
 * those there; MCP servers do send them). A top-level combinator is widened, not dropped: its
 * branches' properties join the object's, `allOf`'s required fields stay required, the others
 * become optional. The gateway still validates every call against the tool's exact schema, so the
 * widening lets through nothing the tool would not accept.
 */
export function toAnthropicInputSchema(canonical: JsonSchema): JsonSchema {
  const { $schema: _dialect, ...schema } = canonical;
  if (!COMBINATORS.some((key) => key in schema)) return { ...schema, type: 'object' };
  const properties: Record<string, unknown> = isRecord(schema['properties'])
    ? { ...schema['properties'] }
    : {};
  const required = new Set(Array.isArray(schema['required']) ? schema['required'] : []);
  for (const key of COMBINATORS) {
    const branches = schema[key];
    delete schema[key];
    if (!Array.isArray(branches)) continue;
    for (const branch of branches) {
      if (!isRecord(branch)) continue;
      if (isRecord(branch['properties'])) {
        for (const [name, property] of Object.entries(branch['properties']))
          if (!Object.hasOwn(properties, name))
            // Defined, not assigned: a property named `__proto__` is a key like any other.
            Object.defineProperty(properties, name, {
              value: property,
              enumerable: true,
              writable: true,
              configurable: true,
            });
      }
      if (key === 'allOf' && Array.isArray(branch['required']))
        for (const name of branch['required']) required.add(name);
    }
  }
  return {
    ...schema,
    type: 'object',
    properties,
    ...(required.size > 0 ? { required: [...required] } : {}),
  };
}
