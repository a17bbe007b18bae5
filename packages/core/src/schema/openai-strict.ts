import type { JsonSchema } from '../tool/tool.js';
import {
  ANNOTATION_KEYWORDS,
  acceptsNull,
  hasObjectShape,
  hasOnlyRefAndAnnotations,
  isRecord,
  resolveLocalRef,
} from './json-schema-utils.js';

/** The result of {@link toOpenAIStrictSchema}. */
export interface OpenAISchemaResult {
  /** The parameters schema to send. */
  readonly schema: JsonSchema;
  /** Whether `schema` is in strict form (send `strict: true`). */
  readonly strict: boolean;
  /** Why strict mode was not possible without loss, when `strict` is false. */
  readonly reason?: string;
}

/** Keywords OpenAI strict mode cannot represent. */
const UNSUPPORTED = [
  '$anchor',
  '$dynamicAnchor',
  '$dynamicRef',
  '$recursiveAnchor',
  '$recursiveRef',
  'contains',
  'contentEncoding',
  'contentMediaType',
  'contentSchema',
  'dependentRequired',
  'dependentSchemas',
  'dependencies',
  'else',
  'if',
  'maxContains',
  'maxProperties',
  'minContains',
  'minProperties',
  'not',
  'patternProperties',
  'prefixItems',
  'propertyNames',
  'then',
  'unevaluatedItems',
  'unevaluatedProperties',
  'uniqueItems',
  'additionalItems',
] as const;

class NotStrict extends Error {}

function at(path: readonly string[]): string {
  return path.length === 0 ? '<root>' : path.join('/');
}

/** Makes an optional property schema accept null, the strict form of "may be absent". */
function nullable(schema: JsonSchema): JsonSchema {
  const type = schema['type'];
  const hasValueSet = 'enum' in schema || 'const' in schema;
  if (!hasValueSet && !('$ref' in schema) && !('anyOf' in schema)) {
    if (typeof type === 'string') return { ...schema, type: [type, 'null'] };
    if (Array.isArray(type)) return { ...schema, type: [...type, 'null'] };
  }
  if (Array.isArray(schema['anyOf']) && !('$ref' in schema)) {
    return { ...schema, anyOf: [...schema['anyOf'], { type: 'null' }] };
  }
  const annotations: JsonSchema = {};
  const core: JsonSchema = {};
  for (const [key, value] of Object.entries(schema)) {
    if (ANNOTATION_KEYWORDS.has(key) && key !== 'default') annotations[key] = value;
    else core[key] = value;
  }
  return { ...annotations, anyOf: [core, { type: 'null' }] };
}

function strictify(node: unknown, path: string[], root: JsonSchema): JsonSchema {
  if (!isRecord(node)) throw new NotStrict(`boolean or non-object schema at ${at(path)}`);
  let schema: JsonSchema = { ...node };
  if (Array.isArray(schema['type']) && schema['type'].length === 1)
    schema['type'] = schema['type'][0];
  for (const keyword of UNSUPPORTED) {
    if (schema[keyword] !== undefined)
      throw new NotStrict(`unsupported keyword "${keyword}" at ${at(path)}`);
  }
  if (Array.isArray(schema['items'])) throw new NotStrict(`tuple-form items at ${at(path)}`);
  if (schema['oneOf'] !== undefined) {
    if (schema['anyOf'] !== undefined) throw new NotStrict(`both anyOf and oneOf at ${at(path)}`);
    schema['anyOf'] = schema['oneOf'];
    delete schema['oneOf'];
  }
  if (schema['allOf'] !== undefined) {
    const allOf = schema['allOf'];
    const siblingsAreAnnotations = Object.keys(schema).every(
      (key) => key === 'allOf' || ANNOTATION_KEYWORDS.has(key),
    );
    if (
      !Array.isArray(allOf) ||
      allOf.length !== 1 ||
      !isRecord(allOf[0]) ||
      !siblingsAreAnnotations
    ) {
      throw new NotStrict(`allOf at ${at(path)} cannot be merged exactly`);
    }
    const { allOf: _merged, ...annotations } = schema;
    schema = { ...allOf[0], ...annotations };
    return strictify(schema, path, root);
  }
  if (typeof schema['$ref'] === 'string') {
    const ref = schema['$ref'];
    if (!ref.startsWith('#')) throw new NotStrict(`external $ref ${ref} at ${at(path)}`);
    if (!resolveLocalRef(root, ref)) throw new NotStrict(`unresolvable $ref ${ref} at ${at(path)}`);
    if (!hasOnlyRefAndAnnotations(schema))
      throw new NotStrict(`$ref with constraining siblings at ${at(path)}`);
  }
  if (hasObjectShape(schema)) {
    const extra = schema['additionalProperties'];
    if (extra !== undefined && extra !== false) {
      throw new NotStrict(`open object (record or map) at ${at(path)}`);
    }
    schema['additionalProperties'] = false;
    const properties = isRecord(schema['properties']) ? schema['properties'] : {};
    const required = Array.isArray(schema['required']) ? (schema['required'] as string[]) : [];
    for (const key of required) {
      if (!(key in properties))
        throw new NotStrict(`required property "${key}" is not declared at ${at(path)}`);
    }
    const out: JsonSchema = {};
    for (const [key, value] of Object.entries(properties)) {
      const child = strictify(value, [...path, 'properties', key], root);
      out[key] = required.includes(key) || acceptsNull(child, root) ? child : nullable(child);
    }
    schema['properties'] = out;
    schema['required'] = Object.keys(out);
  }
  const type = schema['type'];
  if (
    (type === 'array' || (Array.isArray(type) && type.includes('array'))) &&
    schema['items'] === undefined
  ) {
    throw new NotStrict(`array without items at ${at(path)}`);
  }
  if (schema['items'] !== undefined)
    schema['items'] = strictify(schema['items'], [...path, 'items'], root);
  if (Array.isArray(schema['anyOf'])) {
    schema['anyOf'] = schema['anyOf'].map((branch, index) =>
      strictify(branch, [...path, 'anyOf', String(index)], root),
    );
  }
  for (const defs of ['$defs', 'definitions'] as const) {
    const table = schema[defs];
    if (isRecord(table)) {
      const out: JsonSchema = {};
      for (const [name, value] of Object.entries(table))
        out[name] = strictify(value, [...path, defs, name], root);
      schema[defs] = out;
    }
  }
  if (schema['default'] === null) delete schema['default'];
  return schema;
}

/**
 * Converts a JSON Schema to OpenAI's strict function-calling form: every object closed, every
 * property required (optional ones become nullable; use {@link normalizeStrictInput} to turn
 * the model's `null` back into "absent"), `oneOf` → `anyOf`, single-branch `allOf` merged,
 * `$schema` dropped. When that cannot be done without loss — open records, unsupported
 * keywords, tuples, a non-object root — it returns the schema unchanged (minus `$schema`) with
 * `strict: false` and the reason.
 *
 * @example
 * ```ts
 * const { schema, strict, reason } = toOpenAIStrictSchema(toolJsonSchema(tool));
 * ```
 */
export function toOpenAIStrictSchema(input: JsonSchema): OpenAISchemaResult {
  const { $schema: _dialect, $id: _id, ...rest } = structuredClone(input) as JsonSchema;
  let root: JsonSchema = rest;
  if (typeof root['$ref'] === 'string' && hasOnlyRefAndAnnotations(root)) {
    const target = resolveLocalRef(root, root['$ref']);
    if (target) {
      const { $ref: _ref, ...annotations } = root;
      const defs = Object.fromEntries(
        Object.entries(root).filter(([key]) => key === '$defs' || key === 'definitions'),
      );
      root = { ...structuredClone(target), ...annotations, ...defs };
    }
  }
  const looseRoot: JsonSchema =
    Object.keys(root).length === 0 ? { type: 'object', properties: {} } : root;
  if (looseRoot['type'] === undefined && hasObjectShape(looseRoot)) looseRoot['type'] = 'object';
  try {
    if (looseRoot['type'] !== 'object') {
      throw new NotStrict(
        `the root must be an object (got ${JSON.stringify(looseRoot['type'] ?? null)})`,
      );
    }
    if (looseRoot['anyOf'] !== undefined || looseRoot['oneOf'] !== undefined) {
      throw new NotStrict('the root must not be a union');
    }
    return { schema: strictify(looseRoot, [], looseRoot), strict: true };
  } catch (error) {
    if (!(error instanceof NotStrict)) throw error;
    const fallback: JsonSchema = { ...looseRoot };
    if (Array.isArray(fallback['oneOf']) && fallback['anyOf'] === undefined) {
      fallback['anyOf'] = fallback['oneOf'];
      delete fallback['oneOf'];
    }
    return { schema: fallback, strict: false, reason: error.message };
  }
}
