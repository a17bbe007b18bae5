import { hash } from 'node:crypto';

/** Deeper values are refused: canonical JSON is for tool arguments, which are capped far below. */
const MAX_DEPTH = 1_000;

/**
 * The values being serialised, outermost first: a cycle is a value already on it. An array, not a
 * `Set`: arguments are shallow, and a lookup over a few items costs less than making a set.
 */
type Ancestors = object[];

function serialize(value: unknown, ancestors: Ancestors): string | undefined {
  switch (typeof value) {
    case 'string':
      return JSON.stringify(value);
    case 'number':
      // -0 is kept apart from 0 (a tool can tell them apart); non-finite numbers are refused
      // in model arguments before they get here.
      if (Object.is(value, -0)) return '-0';
      return Number.isFinite(value) ? JSON.stringify(value) : 'null';
    case 'boolean':
      return value ? 'true' : 'false';
    case 'bigint':
      return JSON.stringify(value.toString());
    case 'undefined':
    case 'function':
    case 'symbol':
      return undefined;
  }
  if (value === null) return 'null';
  const object = value as object;
  if (ancestors.includes(object)) throw new TypeError('Cannot canonicalise a cyclic value.');
  if (ancestors.length > MAX_DEPTH)
    throw new TypeError('Cannot canonicalise a value nested this deep.');
  ancestors.push(object);
  try {
    return serializeObject(object, ancestors);
  } finally {
    ancestors.pop();
  }
}

function serializeObject(object: object, ancestors: Ancestors): string | undefined {
  if (Array.isArray(object)) {
    let text = '[';
    for (let index = 0; index < object.length; index += 1) {
      if (index > 0) text += ',';
      text += serialize(object[index], ancestors) ?? 'null';
    }
    return `${text}]`;
  }
  // Maps and Sets would serialise as `{}` and hide their content: tag them instead.
  if (object instanceof Map) {
    const entries = [...object.entries()].map(([key, item]) => [key, item]);
    return `{"$map":${serialize(entries, ancestors)}}`;
  }
  if (object instanceof Set) return `{"$set":${serialize([...object], ancestors)}}`;
  if (typeof (object as { toJSON?: unknown }).toJSON === 'function') {
    return serialize((object as { toJSON(): unknown }).toJSON(), ancestors);
  }
  // Own enumerable string keys only, read as plain members: a key named `__proto__` is data
  // here, exactly as the tool (or a server receiving JSON) sees it.
  const keys = Object.keys(object);
  if (keys.length > 1) keys.sort();
  let text = '{';
  for (const key of keys) {
    const item = serialize((object as Record<string, unknown>)[key], ancestors);
    if (item === undefined) continue;
    if (text.length > 1) text += ',';
    text += `${JSON.stringify(key)}:${item}`;
  }
  return `${text}}`;
}

/**
 * Canonical JSON: object keys sorted recursively (by UTF-16 code unit), compact separators,
 * `undefined` members dropped, every own key kept as data (including `__proto__`). Two values
 * that differ only in key order give the same string; values that differ in any member do not.
 * Maps and Sets are tagged (`{"$map":[…]}`, `{"$set":[…]}`) rather than emptied.
 *
 * @throws {TypeError} for a cyclic value or one nested more than 1,000 levels.
 *
 * @example
 * ```ts
 * canonicalJson({ b: 1, a: [true, null] }); // '{"a":[true,null],"b":1}'
 * ```
 */
export function canonicalJson(value: unknown): string {
  return serialize(value, []) ?? 'null';
}

/**
 * SHA-256 (lower-case hex) of the canonical JSON of `value`: what approvals are bound to.
 *
 * @example
 * ```ts
 * canonicalDigest({ x: 1, y: 2 }) === canonicalDigest({ y: 2, x: 1 }); // true
 * ```
 */
export function canonicalDigest(value: unknown): string {
  return hash('sha256', canonicalJson(value), 'hex');
}
