/**
 * True for a plain object: one made by a literal, `JSON.parse` or `Object.create(null)` — not
 * `null`, not an array, not a class instance (`Date`, `Map`, a `Buffer`…). The one check core
 * uses wherever a value from a model, a file or a server must be a JSON object.
 */
export function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const proto: unknown = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}
