import type { JsonSchema } from '../tool/tool.js';
import { isPlainObject } from '../util/plain-object.js';

const TABLES = ['$defs', 'definitions'] as const;

/** The definition a local `$ref` names (`#/$defs/Name/…` → `$defs`, `Name`), if it names one. */
function definitionOf(ref: string): [table: string, name: string] | undefined {
  const match = /^#\/(\$defs|definitions)\/([^/]+)/.exec(ref);
  if (!match) return undefined;
  return [match[1]!, decodeURIComponent(match[2]!).replace(/~1/g, '/').replace(/~0/g, '~')];
}

/** Every `$ref` string under `node`, not descending into the root's definition tables. */
function refsUnder(node: unknown, out: string[], skipTables: boolean, depth = 0): void {
  if (depth > 256) return;
  if (Array.isArray(node)) {
    for (const item of node) refsUnder(item, out, false, depth + 1);
    return;
  }
  if (!isPlainObject(node)) return;
  for (const [key, value] of Object.entries(node)) {
    if (skipTables && (TABLES as readonly string[]).includes(key)) continue;
    if (key === '$ref' && typeof value === 'string') out.push(value);
    else refsUnder(value, out, false, depth + 1);
  }
}

/**
 * `schema` without the root definitions (`$defs`, `definitions`) that no `$ref` reaches, directly
 * or through another reached definition. Servers that ship one table of definitions with every
 * tool (Notion's does: most of its schema text) would otherwise send every table with every
 * tool, and an unused open definition would decide that a tool cannot be strict. A table left
 * empty is removed. The input is not changed; a schema with nothing to prune is returned as is.
 */
export function pruneUnreferencedDefinitions(schema: JsonSchema): JsonSchema {
  if (!TABLES.some((table) => isPlainObject(schema[table]))) return schema;
  const reached = new Set<string>();
  const pending: string[] = [];
  refsUnder(schema, pending, true);
  while (pending.length > 0) {
    const target = definitionOf(pending.pop()!);
    if (!target) continue;
    const key = `${target[0]}/${target[1]}`;
    if (reached.has(key)) continue;
    reached.add(key);
    const table = schema[target[0]];
    if (isPlainObject(table) && Object.hasOwn(table, target[1]))
      refsUnder(table[target[1]], pending, false);
  }
  const out: JsonSchema = { ...schema };
  let changed = false;
  for (const table of TABLES) {
    const entries = out[table];
    if (!isPlainObject(entries)) continue;
    const kept = Object.fromEntries(
      Object.entries(entries).filter(([name]) => reached.has(`${table}/${name}`)),
    );
    if (Object.keys(kept).length === Object.keys(entries).length) continue;
    changed = true;
    if (Object.keys(kept).length === 0) delete out[table];
    else out[table] = kept;
  }
  return changed ? out : schema;
}
