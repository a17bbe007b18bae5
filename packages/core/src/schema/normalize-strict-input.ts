import type { JsonSchema } from '../tool/tool.js';
import { isPlainObject } from '../util/plain-object.js';
import { acceptsNull, hasObjectShape, resolveLocalRef } from './json-schema-utils.js';

const MAX_DEPTH = 64;

function deref(schema: unknown, root: JsonSchema): JsonSchema | undefined {
  let current = schema;
  for (
    let hops = 0;
    hops < 16 && isPlainObject(current) && typeof current['$ref'] === 'string';
    hops += 1
  ) {
    current = resolveLocalRef(root, current['$ref']);
  }
  if (!isPlainObject(current)) return undefined;
  const allOf = current['allOf'];
  if (Array.isArray(allOf) && allOf.length === 1) return deref(allOf[0], root);
  return current;
}

function branchesOf(schema: JsonSchema): unknown[] {
  const anyOf = schema['anyOf'];
  const oneOf = schema['oneOf'];
  return [...(Array.isArray(anyOf) ? anyOf : []), ...(Array.isArray(oneOf) ? oneOf : [])];
}

/** Picks the object-shaped schema (or union branch) that best describes `value`. */
function objectSchemaFor(
  schema: JsonSchema,
  value: Record<string, unknown>,
  root: JsonSchema,
): JsonSchema | undefined {
  if (hasObjectShape(schema) && isPlainObject(schema['properties'])) return schema;
  const candidates = branchesOf(schema)
    .map((branch) => deref(branch, root))
    .filter((branch): branch is JsonSchema => branch !== undefined && hasObjectShape(branch));
  if (candidates.length <= 1) return candidates[0];
  const matchesConsts = (branch: JsonSchema): boolean => {
    const properties = isPlainObject(branch['properties']) ? branch['properties'] : {};
    return Object.entries(properties).every(([key, property]) => {
      const resolved = deref(property, root);
      return !resolved || !('const' in resolved) || resolved['const'] === value[key];
    });
  };
  const keys = Object.keys(value).filter((key) => value[key] !== null);
  const covers = (branch: JsonSchema): boolean => {
    const properties = isPlainObject(branch['properties']) ? branch['properties'] : {};
    return keys.every((key) => key in properties);
  };
  return (
    candidates.find((b) => matchesConsts(b) && covers(b)) ??
    candidates.find(matchesConsts) ??
    candidates.find(covers)
  );
}

function normalize(schemaNode: unknown, value: unknown, root: JsonSchema, depth: number): unknown {
  if (depth > MAX_DEPTH || value === null || typeof value !== 'object') return value;
  const schema = deref(schemaNode, root);
  if (!schema) return value;
  if (Array.isArray(value)) {
    const items =
      schema['items'] ??
      branchesOf(schema)
        .map((b) => deref(b, root)?.['items'])
        .find(Boolean);
    return items === undefined
      ? value
      : value.map((item) => normalize(items, item, root, depth + 1));
  }
  const objectSchema = objectSchemaFor(schema, value as Record<string, unknown>, root);
  if (!objectSchema) return value;
  const properties = isPlainObject(objectSchema['properties']) ? objectSchema['properties'] : {};
  const required = Array.isArray(objectSchema['required'])
    ? (objectSchema['required'] as unknown[])
    : [];
  const out: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value)) {
    const property = properties[key];
    if (
      item === null &&
      property !== undefined &&
      !required.includes(key) &&
      !acceptsNull(property, root)
    )
      continue;
    out[key] = property === undefined ? item : normalize(property, item, root, depth + 1);
  }
  return out;
}

/**
 * Undoes the strict form's synthetic nulls: walks `value` alongside the **original** schema and
 * drops every `null` given for a property that was optional and does not itself accept null, so
 * the original schema (and its defaults) apply. Other values pass through unchanged.
 *
 * @example
 * ```ts
 * normalizeStrictInput(toolJsonSchema(tool), { path: 'a.txt', encoding: null }); // { path: 'a.txt' }
 * ```
 */
export function normalizeStrictInput<T>(originalSchema: JsonSchema, value: T): T {
  // Most calls send no null at all: nothing to undo, and no copy to make.
  if (!holdsNull(value, 0)) return value;
  return normalize(originalSchema, value, originalSchema, 0) as T;
}

/** Whether a `null` occurs in `value` within the depth {@link normalize} walks. */
function holdsNull(value: unknown, depth: number): boolean {
  if (value === null) return true;
  if (typeof value !== 'object' || depth > MAX_DEPTH) return false;
  if (Array.isArray(value)) {
    for (const item of value) if (holdsNull(item, depth + 1)) return true;
    return false;
  }
  for (const key in value) {
    if (Object.hasOwn(value, key) && holdsNull((value as Record<string, unknown>)[key], depth + 1))
      return true;
  }
  return false;
}
