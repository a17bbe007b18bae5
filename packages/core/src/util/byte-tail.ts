/**
 * The last `capacity` bytes written to a stream — a command's stdout, a server's stderr. Memory
 * never exceeds `capacity` bytes however much is written (the buffer grows with what was written,
 * up to `capacity`, then wraps around), and each write costs one copy of at most `capacity` bytes,
 * so a process flooding its output can neither grow our memory nor stall the event loop.
 */
export class ByteTail {
  readonly #capacity: number;
  #ring: Buffer = Buffer.alloc(0);
  /** Where the next byte goes. */
  #end = 0;
  /** Whether the ring has wrapped at least once (every byte of it is data). */
  #full = false;
  /** Bytes written in all. */
  total = 0;

  constructor(capacity: number) {
    this.#capacity = Number.isFinite(capacity) ? Math.max(0, Math.floor(capacity)) : 0;
  }

  /** Adds bytes; only the last `capacity` of everything written are kept. */
  push(chunk: Uint8Array): void {
    this.total += chunk.length;
    const capacity = this.#capacity;
    if (capacity === 0 || chunk.length === 0) return;
    if (chunk.length >= capacity) {
      this.#grow(capacity);
      this.#ring.set(chunk.subarray(chunk.length - capacity));
      this.#end = 0;
      this.#full = true;
      return;
    }
    if (!this.#full && this.#end + chunk.length < capacity) {
      this.#grow(this.#end + chunk.length);
      this.#ring.set(chunk, this.#end);
      this.#end += chunk.length;
      return;
    }
    this.#grow(capacity);
    const ring = this.#ring;
    const first = Math.min(chunk.length, capacity - this.#end);
    ring.set(chunk.subarray(0, first), this.#end);
    if (first < chunk.length) ring.set(chunk.subarray(first), 0);
    this.#full = true;
    this.#end = (this.#end + chunk.length) % capacity;
  }

  /** Whether older bytes were dropped. */
  get truncated(): boolean {
    return this.total > this.#capacity;
  }

  /**
   * The kept bytes as UTF-8 (invalid sequences become U+FFFD). When older bytes were dropped, the
   * continuation bytes of a character cut in half are skipped rather than shown as U+FFFD.
   */
  text(): string {
    let bytes = this.#full
      ? Buffer.concat([this.#ring.subarray(this.#end), this.#ring.subarray(0, this.#end)])
      : this.#ring.subarray(0, this.#end);
    if (this.truncated) {
      let start = 0;
      while (start < 3 && start < bytes.length && (bytes[start]! & 0xc0) === 0x80) start += 1;
      bytes = bytes.subarray(start);
    }
    return bytes.toString('utf8');
  }

  /** Makes room for `size` bytes (never past the capacity), doubling to keep copies rare. */
  #grow(size: number): void {
    if (this.#ring.length >= size) return;
    const next = Buffer.allocUnsafe(
      Math.min(this.#capacity, Math.max(size, this.#ring.length * 2, 4096)),
    );
    this.#ring.copy(next, 0, 0, this.#end);
    this.#ring = next;
  }
}
