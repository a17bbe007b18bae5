import type { JsonSchema } from '../tool/tool.js';
import { isPlainObject } from '../util/plain-object.js';
import { jsonTypeOf, resolveLocalRef } from './json-schema-utils.js';

/** Which keywords constrain which JSON type, to split a multi-type schema into typed branches. */
const TYPE_KEYWORDS: Record<string, readonly string[]> = {
  string: ['minLength', 'maxLength', 'pattern', 'format'],
  number: ['minimum', 'maximum', 'exclusiveMinimum', 'exclusiveMaximum', 'multipleOf'],
  integer: ['minimum', 'maximum', 'exclusiveMinimum', 'exclusiveMaximum', 'multipleOf'],
  array: ['items', 'minItems', 'maxItems', 'prefixItems', 'uniqueItems'],
  object: [
    'properties',
    'required',
    'additionalProperties',
    'propertyNames',
    'minProperties',
    'maxProperties',
  ],
  boolean: [],
  null: [],
};
const TYPED_KEYWORDS = new Set(Object.values(TYPE_KEYWORDS).flat());

interface Walk {
  root: JsonSchema;
  /** Refs currently being inlined (cycle detection). */
  stack: string[];
  /** Refs found to be recursive: kept as `$defs` entries. */
  recursive: Map<string, string>;
}

function valueList(values: readonly unknown[]): string {
  return values.map((value) => JSON.stringify(value)).join(', ');
}

/** `enum`/`const` → one typed `enum` per JSON type (Gemini types `enum` as strings only). */
function typedValueSet(schema: JsonSchema): JsonSchema | undefined {
  const values =
    'const' in schema
      ? [schema['const']]
      : Array.isArray(schema['enum'])
        ? schema['enum']
        : undefined;
  if (!values) return undefined;
  const { const: _c, enum: _e, type: _t, ...rest } = schema;
  const byType = new Map<string, unknown[]>();
  for (const value of values) {
    const type =
      jsonTypeOf(value) === 'integer' && schema['type'] === 'number' ? 'number' : jsonTypeOf(value);
    byType.set(type, [...(byType.get(type) ?? []), value]);
  }
  const nonString = values.some((value) => typeof value !== 'string');
  const description =
    nonString && typeof rest['description'] === 'string'
      ? `${rest['description']} (allowed values: ${valueList(values)})`
      : nonString
        ? `Allowed values: ${valueList(values)}`
        : rest['description'];
  const branch = (type: string, members: unknown[]): JsonSchema =>
    type === 'null' ? { type: 'null' } : { type, enum: members };
  const entries = [...byType.entries()];
  if (entries.length === 1) {
    const [type, members] = entries[0]!;
    return { ...rest, ...branch(type, members), ...(description ? { description } : {}) };
  }
  return {
    ...rest,
    ...(description ? { description } : {}),
    anyOf: entries.map(([type, members]) => branch(type, members)),
  };
}

/** `type: ['string', 'null']` → `anyOf` of single-type branches, each keeping its own keywords. */
function splitTypeArray(schema: JsonSchema): JsonSchema {
  const types = schema['type'] as string[];
  if (types.length === 1) return { ...schema, type: types[0] };
  const shared: JsonSchema = {};
  for (const [key, value] of Object.entries(schema)) {
    if (key !== 'type' && !TYPED_KEYWORDS.has(key)) shared[key] = value;
  }
  const branches = types.map((type) => {
    const branch: JsonSchema = { type };
    for (const key of TYPE_KEYWORDS[type] ?? []) {
      if (key in schema) branch[key] = schema[key];
    }
    return branch;
  });
  return { ...shared, anyOf: branches };
}

function convert(node: unknown, walk: Walk): unknown {
  if (!isPlainObject(node)) return node;
  let schema: JsonSchema = { ...node };
  delete schema['$schema'];
  delete schema['$id'];
  if (typeof schema['$ref'] === 'string') {
    const ref = schema['$ref'];
    const target = resolveLocalRef(walk.root, ref);
    const { $ref: _ref, ...siblings } = schema;
    if (!target) return siblings;
    if (walk.stack.includes(ref)) {
      const name = walk.recursive.get(ref) ?? `def${walk.recursive.size}`;
      walk.recursive.set(ref, name);
      return { ...siblings, $ref: `#/$defs/${name}` };
    }
    walk.stack.push(ref);
    const inlined = convert(target, walk) as JsonSchema;
    walk.stack.pop();
    return { ...inlined, ...siblings };
  }
  delete schema['$defs'];
  delete schema['definitions'];
  if ('oneOf' in schema && !('anyOf' in schema)) {
    schema['anyOf'] = schema['oneOf'];
    delete schema['oneOf'];
  }
  // A value set is final: its typed branches need no further conversion.
  const valueSet = typedValueSet(schema);
  if (valueSet) return valueSet;
  if (Array.isArray(schema['type'])) schema = splitTypeArray(schema);
  const out: JsonSchema = {};
  for (const [key, value] of Object.entries(schema)) {
    if (key === 'properties' && isPlainObject(value)) {
      out[key] = Object.fromEntries(
        Object.entries(value).map(([name, child]) => [name, convert(child, walk)]),
      );
    } else if ((key === 'anyOf' || key === 'allOf') && Array.isArray(value)) {
      out[key] = value.map((child) => convert(child, walk));
    } else if ((key === 'items' || key === 'additionalProperties') && isPlainObject(value)) {
      out[key] = convert(value, walk);
    } else {
      out[key] = value;
    }
  }
  return out;
}

/**
 * Converts a JSON Schema to the form Gemini (and so `@google/adk`) takes as a function
 * declaration's `parametersJsonSchema`: no `$schema`, local `$ref`s inlined (recursive ones kept
 * under `$defs`), `oneOf` → `anyOf`, type arrays split into typed `anyOf` branches, and
 * `enum`/`const` values grouped by JSON type with non-string values also listed in the
 * description. Validation keywords are kept: nothing the model should know is dropped.
 *
 * @example
 * ```ts
 * const declaration = { name: tool.name, description: tool.description, parametersJsonSchema: toGeminiSchema(toolJsonSchema(tool)) };
 * ```
 */
export function toGeminiSchema(input: JsonSchema): JsonSchema {
  const walk: Walk = { root: input, stack: [], recursive: new Map() };
  const converted = convert(input, walk) as JsonSchema;
  if (converted['type'] === undefined && converted['anyOf'] === undefined)
    converted['type'] = 'object';
  if (converted['type'] === 'object' && converted['properties'] === undefined)
    converted['properties'] = {};
  if (walk.recursive.size > 0) {
    const defs: JsonSchema = {};
    // Each recursive definition is converted once more with itself on the stack, so its own
    // self-references stay as `$ref`s into `$defs`.
    for (let index = 0; index < walk.recursive.size; index += 1) {
      const [ref, name] = [...walk.recursive.entries()][index]!;
      walk.stack = [ref];
      defs[name] = convert(resolveLocalRef(input, ref), walk);
    }
    converted['$defs'] = defs;
  }
  return converted;
}
