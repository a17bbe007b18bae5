/** How deep a preview goes before it writes `…`. */
const MAX_DEPTH = 12;

/**
 * The JSON of a value, cut at `max` characters — without serialising more of it than that (a 5 MB
 * string argument costs a slice, not a copy). `cut` says whether anything was left out.
 */
export function previewJson(value: unknown, max: number): { text: string; cut: boolean } {
  let text = '';
  let cut = false;
  const room = () => max - text.length;
  const write = (part: string): boolean => {
    if (part.length > room()) {
      text += part.slice(0, Math.max(room(), 0));
      cut = true;
      return false;
    }
    text += part;
    return true;
  };
  const visit = (node: unknown, depth: number): boolean => {
    if (typeof node === 'string') {
      const shown = node.length > room() ? node.slice(0, room() + 1) : node;
      return write(JSON.stringify(shown)) && shown.length === node.length;
    }
    if (node === null || typeof node !== 'object') return write(JSON.stringify(node) ?? 'null');
    if (depth >= MAX_DEPTH) {
      cut = true;
      return write('…') && false;
    }
    const list = Array.isArray(node);
    if (!write(list ? '[' : '{')) return false;
    let first = true;
    for (const [key, child] of list ? node.entries() : Object.entries(node)) {
      if (!first && !write(',')) return false;
      first = false;
      if (!list && !write(`${JSON.stringify(key)}:`)) return false;
      if (!visit(child, depth + 1)) return false;
    }
    return write(list ? ']' : '}');
  };
  const whole = visit(value, 0);
  if (!whole) cut = true;
  return { text: cut ? `${text}…` : text, cut };
}
