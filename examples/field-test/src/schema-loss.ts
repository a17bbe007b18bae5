// What a framework's schema lost of a server's own: properties, required fields and enum values,
// found by walking both (local `$ref`s resolved, unions and nullable wrappers looked through).

type Schema = Record<string, unknown>;

const isObject = (value: unknown): value is Schema =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** What the walk records at each property path. */
interface Seen {
  required: boolean;
  enums: Set<string>;
}

function resolve(root: Schema, ref: string): Schema | undefined {
  if (!ref.startsWith('#/')) return undefined;
  let current: unknown = root;
  for (const raw of ref.slice(2).split('/')) {
    const key = decodeURIComponent(raw).replace(/~1/g, '/').replace(/~0/g, '~');
    if (!isObject(current)) return undefined;
    current = current[key];
  }
  return isObject(current) ? current : undefined;
}

/** Every property path of `schema` (`a.b[]`), whether it is required, and its enum values. */
export function propertyPaths(schema: Schema, maxDepth = 8): Map<string, Seen> {
  const out = new Map<string, Seen>();
  const visit = (node: unknown, at: string, required: boolean, depth: number, refs: string[]) => {
    if (!isObject(node) || depth > maxDepth) return;
    if (typeof node['$ref'] === 'string') {
      if (refs.includes(node['$ref'])) return; // recursion: seen once is enough
      visit(resolve(schema, node['$ref']), at, required, depth, [...refs, node['$ref']]);
    }
    if (at) {
      const seen = out.get(at) ?? { required: false, enums: new Set<string>() };
      seen.required ||= required;
      for (const value of Array.isArray(node['enum']) ? node['enum'] : [])
        if (value !== null) seen.enums.add(String(value));
      if ('const' in node && node['const'] !== null) seen.enums.add(String(node['const']));
      out.set(at, seen);
    }
    for (const union of ['anyOf', 'oneOf', 'allOf'])
      for (const branch of Array.isArray(node[union]) ? node[union] : [])
        visit(branch, at, required, depth + 1, refs);
    if (isObject(node['properties'])) {
      const needed = Array.isArray(node['required']) ? node['required'] : [];
      for (const [key, value] of Object.entries(node['properties']))
        visit(value, at ? `${at}.${key}` : key, needed.includes(key), depth + 1, refs);
    }
    if (isObject(node['items'])) visit(node['items'], `${at}[]`, false, depth + 1, refs);
  };
  visit(schema, '', false, 0, []);
  return out;
}

/** What `target` dropped of `original`: missing paths, required fields, enum values. */
export function schemaLoss(original: Schema, target: Schema): string[] {
  const before = propertyPaths(original);
  const after = propertyPaths(target);
  const lost: string[] = [];
  for (const [at, seen] of before) {
    const now = after.get(at);
    if (!now) {
      lost.push(`property ${at} is gone`);
      continue;
    }
    if (seen.required && !now.required) lost.push(`${at} is no longer required`);
    for (const value of seen.enums)
      if (!now.enums.has(value)) lost.push(`${at} lost the enum value ${JSON.stringify(value)}`);
  }
  return lost;
}
