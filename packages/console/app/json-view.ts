import { h } from './dom.js';

/** Characters of JSON shown before "Show all". */
const SHOWN_CHARS = 20_000;

/** Pretty JSON of a value, as text; large values collapsed behind a "Show all" button. */
export function jsonBlock(value: unknown, shown = SHOWN_CHARS): HTMLElement {
  const text = JSON.stringify(value, null, 2) ?? 'undefined';
  const pre = h('pre', { class: 'json' });
  if (text.length <= shown) {
    pre.append(h('code', null, text));
    return pre;
  }
  const code = h('code', null, `${text.slice(0, shown)}\n…`);
  pre.append(code);
  const more = h(
    'button',
    {
      type: 'button',
      class: 'link',
      onclick: () => {
        code.replaceChildren(h('span', null, text));
        more.remove();
      },
    },
    `Show all (${text.length.toLocaleString()} characters)`,
  );
  return h('div', { class: 'json-collapsed' }, pre, more);
}
