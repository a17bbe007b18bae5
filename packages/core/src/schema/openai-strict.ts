import type { JsonSchema } from '../tool/tool.js';
import { isPlainObject } from '../util/plain-object.js';
import {
  ANNOTATION_KEYWORDS,
  acceptsNull,
  hasObjectShape,
  hasOnlyRefAndAnnotations,
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

/**
 * Everything a strict schema may hold, from OpenAI's Structured Outputs guide ("Supported
 * schemas"): the structure, `description` and `title`, and the constraints it lists — `pattern`
 * and `format` for strings, `minimum`/`maximum` (and exclusive), `multipleOf` for numbers,
 * `minItems`/`maxItems` for arrays — plus `minLength`/`maxLength`, which the API accepts.
 */
const STRICT_KEYWORDS: ReadonlySet<string> = new Set([
  'type',
  'properties',
  'required',
  'additionalProperties',
  'items',
  'anyOf',
  'enum',
  'const',
  '$ref',
  '$defs',
  'definitions',
  'description',
  'title',
  'pattern',
  'format',
  'minimum',
  'maximum',
  'exclusiveMinimum',
  'exclusiveMaximum',
  'multipleOf',
  'minItems',
  'maxItems',
  'minLength',
  'maxLength',
]);
/** The string formats the guide lists; any other `format` is said in the description instead. */
export const OPENAI_STRICT_FORMATS: ReadonlySet<string> = new Set([
  'date-time',
  'time',
  'date',
  'duration',
  'email',
  'hostname',
  'ipv4',
  'ipv6',
  'uuid',
]);
/** Keywords that only inform or are inert for arguments: removed (their meaning kept as a note). */
const NOTED_KEYWORDS: ReadonlySet<string> = new Set([
  'default',
  'examples',
  'example',
  'deprecated',
  'readOnly',
  'writeOnly',
  '$comment',
  '$id',
  '$schema',
  'nullable',
  'discriminator',
  'xml',
  'externalDocs',
]);

const shortJson = (value: unknown): string => {
  const text = JSON.stringify(value) ?? String(value);
  return text.length > 120 ? `${text.slice(0, 117)}…` : text;
};

/**
 * Keeps only what OpenAI strict mode accepts: `default` (not in the guide's list, and rejected by
 * Azure OpenAI; the model fills every field in strict mode anyway), `examples`, `deprecated` and an
 * unlisted `format` (`uri`, `int32`…) move into the description, where the model still reads them;
 * OpenAPI's `nullable: true` becomes a `null` type; inert annotations (`readOnly`, `$comment`,
 * vendor `x-…` keys) are dropped. Any other keyword cannot be dropped without changing what is
 * valid, so the schema is not strict.
 */
function strictKeywords(schema: JsonSchema, path: readonly string[]): JsonSchema {
  const notes: string[] = [];
  const out: JsonSchema = {};
  for (const [key, value] of Object.entries(schema)) {
    if (key === 'format' && (typeof value !== 'string' || !OPENAI_STRICT_FORMATS.has(value))) {
      notes.push(`Format: ${typeof value === 'string' ? value : shortJson(value)}.`);
      continue;
    }
    if (STRICT_KEYWORDS.has(key)) {
      out[key] = value;
      continue;
    }
    if (key.startsWith('x-')) continue;
    if (!NOTED_KEYWORDS.has(key))
      throw new NotStrict(`unsupported keyword "${key}" at ${at(path)}`);
    if (key === 'default' && value !== null) notes.push(`Default: ${shortJson(value)}.`);
    if ((key === 'examples' || key === 'example') && value !== undefined)
      notes.push(
        `Example: ${Array.isArray(value) && key === 'examples' ? value.slice(0, 3).map(shortJson).join(', ') : shortJson(value)}.`,
      );
    if (key === 'deprecated' && value === true) notes.push('Deprecated.');
  }
  if (schema['nullable'] === true && typeof out['type'] === 'string')
    out['type'] = [out['type'], 'null'];
  else if (
    schema['nullable'] === true &&
    Array.isArray(out['type']) &&
    !out['type'].includes('null')
  )
    out['type'] = [...out['type'], 'null'];
  if (notes.length > 0) {
    const description = typeof out['description'] === 'string' ? out['description'].trim() : '';
    out['description'] = [description, ...notes].filter(Boolean).join(' ');
  }
  return out;
}

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
  if (!isPlainObject(node)) throw new NotStrict(`boolean or non-object schema at ${at(path)}`);
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
      !isPlainObject(allOf[0]) ||
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
    const properties = isPlainObject(schema['properties']) ? schema['properties'] : {};
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
    if (isPlainObject(table)) {
      const out: JsonSchema = {};
      for (const [name, value] of Object.entries(table))
        out[name] = strictify(value, [...path, defs, name], root);
      schema[defs] = out;
    }
  }
  return strictKeywords(schema, path);
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
