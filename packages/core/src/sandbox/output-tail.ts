/** Bytes kept per stream by default. */
export const DEFAULT_MAX_OUTPUT_BYTES = 1024 * 1024;
/** Bytes kept per stream at most, whatever a command asks for. */
export const MAX_OUTPUT_BYTES_CAP = 64 * 1024 * 1024;

/** A command's `maxOutputBytes`: a non-negative integer up to 64 MiB, else the 1 MiB default. */
export function clampOutputBytes(value: number | undefined): number {
  if (value === undefined || !Number.isFinite(value) || value < 0) return DEFAULT_MAX_OUTPUT_BYTES;
  return Math.min(Math.floor(value), MAX_OUTPUT_BYTES_CAP);
}

/**
 * The last `limit` bytes of a stream. Memory stays bounded by `limit` plus one chunk whatever
 * the stream's length: older chunks are dropped as newer ones arrive.
 */
export class OutputTail {
  private chunks: Buffer[] = [];
  private size = 0;
  /** Bytes seen in all. */
  total = 0;

  constructor(private readonly limit: number) {}

  push(chunk: Buffer): void {
    this.total += chunk.length;
    if (this.limit === 0) return;
    if (chunk.length >= this.limit) {
      // Copy: keeping a view would pin the whole (possibly large) chunk.
      this.chunks = [Buffer.from(chunk.subarray(chunk.length - this.limit))];
      this.size = this.limit;
      return;
    }
    this.chunks.push(chunk);
    this.size += chunk.length;
    while (this.size - this.chunks[0]!.length >= this.limit) {
      this.size -= this.chunks.shift()!.length;
    }
  }

  /** Whether bytes were dropped. */
  get truncated(): boolean {
    return this.total > this.limit;
  }

  /**
   * The kept bytes as UTF-8 (invalid sequences become U+FFFD). When the head was cut, the
   * continuation bytes of a character split by the cut are dropped rather than shown as U+FFFD.
   */
  text(): string {
    let bytes = Buffer.concat(this.chunks, this.size);
    if (bytes.length > this.limit) bytes = bytes.subarray(bytes.length - this.limit);
    if (this.truncated) {
      let start = 0;
      while (start < 3 && start < bytes.length && (bytes[start]! & 0xc0) === 0x80) start += 1;
      bytes = bytes.subarray(start);
    }
    return bytes.toString('utf8');
  }
}
