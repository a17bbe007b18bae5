import type { SearchHit } from './search-hit.js';

/** What the in-process search worker is given. */
export interface SearchWorkerData {
  /** Path of re2js's CommonJS build, resolved by the main thread. */
  readonly re2Path: string;
  readonly pattern: string;
  readonly flags: number;
  /** Candidates in path order. */
  readonly files: readonly { readonly path: string; readonly absolute: string }[];
  readonly contextLines: number;
  /** The worker stops after `maxResults + 1` hits (the extra one says "truncated"). */
  readonly maxResults: number;
  readonly maxFileBytes: number;
  /**
   * The pattern has no `^`, `$`, `\A`, `\z` or flag group, so a line can match only if the whole
   * text does: one test of the whole file skips files without a match (most of them).
   */
  readonly prefilter: boolean;
  /**
   * For ASCII literal queries: the text to look for with the engine's native `includes` in the
   * raw bytes before any decoding or regex (lower-cased when `foldCase`; only offered when that
   * cannot lose a match).
   */
  readonly literal?: { readonly needle: string; readonly foldCase: boolean } | undefined;
}

/** Messages from the worker: the hits of one file, then `done`. */
export type SearchWorkerMessage =
  | { readonly hits: SearchHit[] }
  | { readonly done: true }
  | { readonly error: string };

type Load = (id: string) => unknown;

/**
 * The body of the in-process search worker. It runs on its own thread (its source is sent to a
 * `Worker` with `eval`), so it must be self-contained: no imports, no outer names — everything
 * comes in as parameters. Files are read synchronously (this thread has nothing else to do),
 * opened with `O_NOFOLLOW | O_NONBLOCK` and refused unless regular; binary (any NUL) and
 * non-UTF-8 files are skipped, as ripgrep's results are.
 */
export function runSearchWorker(
  data: SearchWorkerData,
  post: (message: SearchWorkerMessage) => void,
  splitLines: (text: string) => string[],
  searchHit: (path: string, lines: string[], index: number, context: number) => SearchHit,
  load: Load,
): void {
  const fs = load('node:fs') as typeof import('node:fs');
  const { RE2JS } = load(data.re2Path) as typeof import('re2js');
  const matcher = RE2JS.compile(data.pattern, data.flags);
  const decoder = new TextDecoder('utf-8', { fatal: true });
  const flags = fs.constants.O_RDONLY | fs.constants.O_NOFOLLOW | fs.constants.O_NONBLOCK;
  let found = 0;
  for (const file of data.files) {
    let bytes: Buffer;
    let fd: number | undefined;
    try {
      fd = fs.openSync(file.absolute, flags);
      const stats = fs.fstatSync(fd);
      if (!stats.isFile() || stats.size > data.maxFileBytes) continue;
      bytes = fs.readFileSync(fd);
    } catch {
      continue;
    } finally {
      if (fd !== undefined) fs.closeSync(fd);
    }
    if (bytes.length > data.maxFileBytes) continue;
    const literal = data.literal;
    if (literal) {
      // Bytes read as Latin-1 keep every ASCII byte where it is, so an ASCII needle is found
      // exactly where it is in the UTF-8 text — without validating files that cannot match.
      const raw = bytes.toString('latin1');
      if (!(literal.foldCase ? raw.toLowerCase() : raw).includes(literal.needle)) continue;
    }
    if (bytes.includes(0)) continue;
    let text: string;
    try {
      text = decoder.decode(bytes);
    } catch {
      continue;
    }
    if (!literal && data.prefilter && !matcher.test(text)) continue;
    const lines = splitLines(text);
    const hits: SearchHit[] = [];
    for (let index = 0; index < lines.length; index += 1) {
      if (!matcher.test(lines[index] as string)) continue;
      hits.push(searchHit(file.path, lines, index, data.contextLines));
      found += 1;
      if (found > data.maxResults) break;
    }
    if (hits.length > 0) post({ hits });
    if (found > data.maxResults) break;
  }
  post({ done: true });
}
