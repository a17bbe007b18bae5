import type { JsonSchema } from '../tool/tool.js';
import { isPlainObject } from '../util/plain-object.js';
import { resolveLocalRef } from './json-schema-utils.js';

/** Keywords whose subschemas apply to the same value as their parent (no descent into it). */
const SAME_VALUE = ['allOf', 'anyOf', 'oneOf'] as const;

/**
 * Finds a `$ref` loop that never descends into the value — `{"$ref":"#"}`, or `a → b → a` through
 * `$ref`, `allOf`, `anyOf`, `oneOf`, `not` — which sends any validator into endless recursion.
 * Recursive schemas that descend (a tree whose `children` items refer back to the root) are fine.
 * Returns the looping pointer, or `undefined`.
 */
export function findRefLoop(root: JsonSchema): string | undefined {
  const state = new Map<object, 'visiting' | 'done'>();
  const visit = (node: unknown, pointer: string, depth: number): string | undefined => {
    if (!isPlainObject(node) || depth > 256) return undefined;
    const mark = state.get(node);
    if (mark === 'visiting') return pointer;
    if (mark === 'done') return undefined;
    state.set(node, 'visiting');
    const next: [unknown, string][] = [];
    if (typeof node['$ref'] === 'string')
      next.push([resolveLocalRef(root, node['$ref']), node['$ref']]);
    for (const keyword of SAME_VALUE) {
      const branches = node[keyword];
      if (Array.isArray(branches))
        for (const [i, branch] of branches.entries())
          next.push([branch, `${pointer}/${keyword}/${i}`]);
    }
    if (isPlainObject(node['not'])) next.push([node['not'], `${pointer}/not`]);
    for (const [child, where] of next) {
      const loop = visit(child, where, depth + 1);
      if (loop) return loop;
    }
    state.set(node, 'done');
    return undefined;
  };
  // Every subschema can be entered by some value: check each of them as a starting point.
  const stack: [unknown, string][] = [[root, '#']];
  const seen = new Set<object>();
  while (stack.length > 0) {
    const [node, pointer] = stack.pop()!;
    if (!isPlainObject(node) || seen.has(node)) continue;
    seen.add(node);
    const loop = visit(node, pointer, 0);
    if (loop) return loop;
    for (const [key, value] of Object.entries(node)) {
      if (isPlainObject(value)) stack.push([value, `${pointer}/${key}`]);
      else if (Array.isArray(value))
        for (const [index, item] of value.entries())
          stack.push([item, `${pointer}/${key}/${index}`]);
    }
  }
  return undefined;
}
