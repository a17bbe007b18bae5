import { diffLines } from 'diff';
import { h } from './dom.js';

/** A line diff of two values' pretty JSON: removed lines, then added, in order. */
export function jsonDiff(before: unknown, after: unknown): HTMLElement {
  const parts = diffLines(
    JSON.stringify(before, null, 2) ?? '',
    JSON.stringify(after, null, 2) ?? '',
  );
  const changed = parts.some((part) => part.added || part.removed);
  if (!changed) return h('p', { class: 'muted' }, 'No change from the model’s arguments.');
  return h(
    'pre',
    { class: 'diff' },
    parts.map((part) =>
      h(
        'span',
        { class: part.added ? 'added' : part.removed ? 'removed' : 'same' },
        part.value
          .replace(/\n$/, '')
          .split('\n')
          .map((line) => `${part.added ? '+ ' : part.removed ? '- ' : '  '}${line}\n`)
          .join(''),
      ),
    ),
  );
}
