import type { JsonSchema } from '../tool/tool.js';
import { isPlainObject } from '../util/plain-object.js';

/** Keywords that only annotate a schema and never constrain a value. */
export const ANNOTATION_KEYWORDS: ReadonlySet<string> = new Set([
  '$comment',
  'default',
  'description',
  'examples',
  'readOnly',
  'title',
  'writeOnly',
]);

/** Resolves a local JSON pointer (`#/$defs/x`, `#/definitions/x`) against `root`. */
export function resolveLocalRef(root: JsonSchema, ref: string): JsonSchema | undefined {
  if (ref === '#') return root;
  if (!ref.startsWith('#/')) return undefined;
  let current: unknown = root;
  for (const raw of ref.slice(2).split('/')) {
    const part = decodeURIComponent(raw).replace(/~1/g, '/').replace(/~0/g, '~');
    if (!isPlainObject(current) || !(part in current)) return undefined;
    current = current[part];
  }
  return isPlainObject(current) ? current : undefined;
}

/** True when the schema has only `$ref` and annotation keywords. */
export function hasOnlyRefAndAnnotations(schema: JsonSchema): boolean {
  return Object.keys(schema).every((key) => key === '$ref' || ANNOTATION_KEYWORDS.has(key));
}

/** True when the schema describes (only or also) objects. */
export function hasObjectShape(schema: JsonSchema): boolean {
  const type = schema['type'];
  return (
    type === 'object' ||
    (Array.isArray(type) && type.includes('object')) ||
    'properties' in schema ||
    'additionalProperties' in schema ||
    ('required' in schema && type === undefined)
  );
}

/**
 * True when null is a valid value for `schema` (resolving local refs): an empty schema, a
 * `null` type, a null `const`/`enum` member, or a union with a nullable branch.
 */
export function acceptsNull(schema: unknown, root: JsonSchema, depth = 0): boolean {
  if (schema === true) return true;
  if (!isPlainObject(schema) || depth > 32) return false;
  if (typeof schema['$ref'] === 'string') {
    const target = resolveLocalRef(root, schema['$ref']);
    return target !== undefined && acceptsNull(target, root, depth + 1);
  }
  const type = schema['type'];
  if (type !== undefined && type !== 'null' && !(Array.isArray(type) && type.includes('null')))
    return false;
  if ('const' in schema && schema['const'] !== null) return false;
  if (Array.isArray(schema['enum']) && !schema['enum'].includes(null)) return false;
  for (const keyword of ['anyOf', 'oneOf'] as const) {
    const branches = schema[keyword];
    if (Array.isArray(branches) && !branches.some((branch) => acceptsNull(branch, root, depth + 1)))
      return false;
  }
  if (
    Array.isArray(schema['allOf']) &&
    !schema['allOf'].every((branch) => acceptsNull(branch, root, depth + 1))
  ) {
    return false;
  }
  return !('not' in schema || 'if' in schema);
}

/** The JSON type name of a value, as JSON Schema spells it. */
export function jsonTypeOf(
  value: unknown,
): 'null' | 'boolean' | 'integer' | 'number' | 'string' | 'array' | 'object' {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  if (typeof value === 'number') return Number.isInteger(value) ? 'integer' : 'number';
  if (typeof value === 'boolean') return 'boolean';
  if (typeof value === 'string') return 'string';
  return 'object';
}
