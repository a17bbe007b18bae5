/**
 * The last `capacity` bytes written to a stream, in one ring buffer allocated on first use.
 * Memory is exactly `capacity` bytes however much is written, and each write costs one copy of
 * at most `capacity` bytes, so a process flooding its stderr can neither grow our memory nor
 * stall the event loop.
 */
export class StderrTail {
  readonly #capacity: number;
  #ring: Buffer | undefined;
  /** Where the next byte goes. */
  #end = 0;
  /** Whether the ring has wrapped at least once (every byte of it is data). */
  #full = false;
  /** Bytes written in all. */
  total = 0;

  constructor(capacity: number) {
    this.#capacity = Math.max(0, Math.floor(capacity));
  }

  push(chunk: Uint8Array): void {
    this.total += chunk.length;
    const capacity = this.#capacity;
    if (capacity === 0 || chunk.length === 0) return;
    this.#ring ??= Buffer.allocUnsafe(capacity);
    const ring = this.#ring;
    if (chunk.length >= capacity) {
      ring.set(chunk.subarray(chunk.length - capacity));
      this.#end = 0;
      this.#full = true;
      return;
    }
    const first = Math.min(chunk.length, capacity - this.#end);
    ring.set(chunk.subarray(0, first), this.#end);
    if (first < chunk.length) ring.set(chunk.subarray(first), 0);
    if (this.#end + chunk.length >= capacity) this.#full = true;
    this.#end = (this.#end + chunk.length) % capacity;
  }

  /** Whether older bytes were dropped. */
  get truncated(): boolean {
    return this.total > this.#capacity;
  }

  /**
   * The kept bytes as UTF-8. When older bytes were dropped, the continuation bytes of a
   * character cut in half are skipped rather than shown as U+FFFD.
   */
  text(): string {
    const ring = this.#ring;
    if (!ring) return '';
    let bytes = this.#full
      ? Buffer.concat([ring.subarray(this.#end), ring.subarray(0, this.#end)])
      : ring.subarray(0, this.#end);
    if (this.truncated) {
      let start = 0;
      while (start < 3 && start < bytes.length && (bytes[start]! & 0xc0) === 0x80) start += 1;
      bytes = bytes.subarray(start);
    }
    return bytes.toString('utf8');
  }
}
