import { h } from './dom.js';

/** A list of any length that renders only the rows in view (fixed row height). */
export interface VirtualList<T> {
  readonly element: HTMLElement;
  /** The rows, and whether more may come (near the end, `onNearEnd` asks for them). */
  setItems(items: readonly T[], more: boolean): void;
  /** Renders the rows in view again (after a selection changed). */
  refresh(): void;
}

/** Options of {@link virtualList}. */
export interface VirtualListOptions<T> {
  readonly rowHeight: number;
  readonly renderRow: (item: T, index: number) => HTMLElement;
  readonly onNearEnd?: () => void;
  readonly empty: string;
}

/** Rows rendered beyond the visible ones, above and below. */
const OVERSCAN = 8;

/** A virtualised list: a scrolling box whose height is all rows', holding only the visible ones. */
export function virtualList<T>(options: VirtualListOptions<T>): VirtualList<T> {
  const { rowHeight, renderRow, onNearEnd, empty } = options;
  const spacer = h('div', { class: 'vlist-spacer' });
  const element = h('div', { class: 'vlist', role: 'list' }, spacer);
  let items: readonly T[] = [];
  let more = false;
  let scheduled = false;

  const render = (): void => {
    scheduled = false;
    spacer.style.height = `${Math.max(items.length, 1) * rowHeight}px`;
    if (items.length === 0) {
      spacer.replaceChildren(h('p', { class: 'empty' }, empty));
      return;
    }
    const top = element.scrollTop;
    const height = element.clientHeight || 600;
    const first = Math.max(0, Math.floor(top / rowHeight) - OVERSCAN);
    const last = Math.min(items.length, Math.ceil((top + height) / rowHeight) + OVERSCAN);
    const rows: HTMLElement[] = [];
    for (let index = first; index < last; index += 1) {
      const row = renderRow(items[index]!, index);
      row.style.top = `${index * rowHeight}px`;
      row.style.height = `${rowHeight}px`;
      row.setAttribute('role', 'listitem');
      rows.push(row);
    }
    spacer.replaceChildren(...rows);
    if (more && last >= items.length - OVERSCAN) onNearEnd?.();
  };
  const schedule = (): void => {
    if (scheduled) return;
    scheduled = true;
    requestAnimationFrame(render);
  };
  element.addEventListener('scroll', schedule, { passive: true });
  return {
    element,
    setItems(next, hasMore) {
      items = next;
      more = hasMore;
      schedule();
    },
    refresh: schedule,
  };
}
