// The app's one way to build the page: elements and text nodes, never HTML strings — whatever a
// model or a remote server wrote lands in text nodes and attribute values, so it shows as text.

export type Child = Node | string | number | false | null | undefined | readonly Child[];
type Props = Record<string, string | number | boolean | EventListener | undefined | null>;

/**
 * Characters that would change how text reads rather than what it says: controls (but newline and
 * tab), format characters (bidirectional marks, overrides and isolates, zero-width marks, the
 * Arabic letter mark, soft hyphens, Unicode tags that hide a whole sentence), line and paragraph
 * separators, and the blank letters and variation selectors that show as nothing.
 */
// Marks that combine with what precedes them (the grapheme joiner, Khmer inherent vowels,
// variation selectors) are alternatives of their own, never in a class beside other characters.
const INVISIBLE =
  /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}\u115f\u1160\u180e\u2800\u3164\uffa0]|\u034f|\u17b4|\u17b5|[\ufe00-\ufe0f]|[\u{e0100}-\u{e01ef}]/gu;

/** Text as shown: invisible and direction-changing characters as `\uXXXX` (`\u{XXXXX}`) escapes. */
export const visible = (text: string): string =>
  text.replace(INVISIBLE, (char) => {
    if (char === '\n' || char === '\t') return char;
    const code = char.codePointAt(0)!;
    return code > 0xffff ? `\\u{${code.toString(16)}}` : `\\u${code.toString(16).padStart(4, '0')}`;
  });

/** An element with attributes, listeners (`onclick`…) and children (strings become text nodes). */
export function h<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  props: Props | null = null,
  ...children: Child[]
): HTMLElementTagNameMap[K] {
  const element = document.createElement(tag);
  for (const [name, value] of Object.entries(props ?? {})) {
    if (value === undefined || value === null || value === false) continue;
    if (name.startsWith('on') && typeof value === 'function')
      element.addEventListener(name.slice(2), value);
    else if (value === true) element.setAttribute(name, '');
    else element.setAttribute(name, String(value));
  }
  append(element, children);
  return element;
}

/** Appends children (strings as text nodes, made visible; arrays flattened; falsy skipped). */
export function append(parent: Node, children: readonly Child[]): void {
  for (const child of children) {
    if (child === null || child === undefined || child === false) continue;
    if (Array.isArray(child)) append(parent, child);
    else if (typeof child === 'string' || typeof child === 'number')
      parent.appendChild(document.createTextNode(visible(String(child))));
    else parent.appendChild(child as Node);
  }
}

/** Replaces an element's children. */
export function replace(parent: Element, ...children: Child[]): void {
  parent.replaceChildren();
  append(parent, children);
}

/** A relative time ("3 s ago", "in 14 min") with the exact time as its tooltip. */
export function when(iso: string | number | undefined): HTMLElement {
  if (iso === undefined) return h('span', { class: 'muted' }, '—');
  const at = typeof iso === 'number' ? iso : Date.parse(iso);
  const seconds = Math.round((at - Date.now()) / 1000);
  const size = Math.abs(seconds);
  const amount =
    size < 60
      ? `${size} s`
      : size < 3600
        ? `${Math.round(size / 60)} min`
        : size < 86400
          ? `${Math.round(size / 3600)} h`
          : `${Math.round(size / 86400)} d`;
  const text = seconds <= 0 ? `${amount} ago` : `in ${amount}`;
  return h(
    'time',
    { datetime: new Date(at).toISOString(), title: new Date(at).toLocaleString() },
    text,
  );
}

/** A small coloured label (risk, outcome, state). */
export const badge = (text: string, kind: string = text): HTMLElement =>
  h('span', { class: `badge badge-${kind.replace(/[^a-z_-]/gi, '')}` }, text);
