/**
 * An item that can be in up to three {@link Chain}s at once: its neighbours in each, held on the
 * item itself (no link objects; a store keeping thousands of items makes less garbage).
 */
export interface Chained<T> {
  /** The previous (older) and next (newer) item in chain 0, 1 and 2. */
  prev0: T | undefined;
  next0: T | undefined;
  prev1: T | undefined;
  next1: T | undefined;
  prev2: T | undefined;
  next2: T | undefined;
}

type Slot = 0 | 1 | 2;
type PrevKey = `prev${Slot}`;
type NextKey = `next${Slot}`;

/**
 * Items in insertion order, each removable at once: an intrusive doubly linked list, using the
 * item's `prev<slot>` and `next<slot>` fields. Cheaper than a `Set` for a queue appended to on
 * every call and mostly emptied from its oldest end. An item is in a chain of a slot at most once.
 */
export class Chain<T extends Chained<T>> {
  private head: T | undefined;
  private tail: T | undefined;
  private readonly prev: PrevKey;
  private readonly next: NextKey;
  /** How many items it holds. */
  size = 0;

  /** A chain linking its items through their fields of `slot`. */
  constructor(slot: Slot) {
    this.prev = `prev${slot}`;
    this.next = `next${slot}`;
  }

  /** Appends `item` (newest). */
  push(item: T): void {
    item[this.prev] = this.tail;
    item[this.next] = undefined;
    if (this.tail) this.tail[this.next] = item;
    else this.head = item;
    this.tail = item;
    this.size += 1;
  }

  /** Removes `item`, which must be in this chain. */
  remove(item: T): void {
    const before = item[this.prev];
    const after = item[this.next];
    if (before) before[this.next] = after;
    else this.head = after;
    if (after) after[this.prev] = before;
    else this.tail = before;
    item[this.prev] = undefined;
    item[this.next] = undefined;
    this.size -= 1;
  }

  /** The items oldest first; removing the current one while iterating is safe (no other). */
  *[Symbol.iterator](): IterableIterator<T> {
    for (let item = this.head; item; ) {
      const after: T | undefined = item[this.next];
      yield item;
      item = after;
    }
  }

  /** The items oldest first, as an array. */
  toArray(): T[] {
    const items: T[] = [];
    for (let item = this.head; item; item = item[this.next]) items.push(item);
    return items;
  }
}
