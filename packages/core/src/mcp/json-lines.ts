/** A stdout line longer than the limit. */
export class LineTooLongError extends Error {
  constructor(readonly limit: number) {
    super(`a line longer than ${limit} bytes`);
    this.name = 'LineTooLongError';
  }
}

/**
 * Splits a byte stream into `\n`-terminated lines (a trailing `\r` dropped), in time linear in
 * the bytes received: each chunk is scanned once and a line is joined once, when it ends. (The
 * SDK's `ReadBuffer` re-joins and re-scans the whole pending buffer on every chunk, which is
 * quadratic: a 16 MiB line costs seconds of CPU and blocks the event loop for hundreds of
 * milliseconds.) A line longer than `maxLineBytes` throws {@link LineTooLongError}; nothing more
 * than that is ever held.
 */
export class LineSplitter {
  readonly #max: number;
  #pending: Buffer[] = [];
  #size = 0;

  constructor(maxLineBytes: number) {
    this.#max = maxLineBytes;
  }

  /** The lines this chunk completes. */
  push(chunk: Buffer): string[] {
    const lines: string[] = [];
    let start = 0;
    for (let end = chunk.indexOf(10); end !== -1; end = chunk.indexOf(10, start)) {
      const tail = chunk.subarray(start, end);
      this.#hold(tail.length);
      const line = this.#size === tail.length ? tail : Buffer.concat([...this.#pending, tail]);
      this.clear();
      const text = line.toString('utf8');
      lines.push(text.endsWith('\r') ? text.slice(0, -1) : text);
      start = end + 1;
    }
    if (start < chunk.length) {
      const rest = chunk.subarray(start);
      this.#hold(rest.length);
      this.#pending.push(rest);
    }
    return lines;
  }

  #hold(bytes: number): void {
    this.#size += bytes;
    if (this.#size > this.#max) {
      this.clear();
      throw new LineTooLongError(this.#max);
    }
  }

  /** Forgets a partial line. */
  clear(): void {
    this.#pending = [];
    this.#size = 0;
  }
}
