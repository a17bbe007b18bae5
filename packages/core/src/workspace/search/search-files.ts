import { constants } from 'node:fs';
import { open } from 'node:fs/promises';
import path from 'node:path';
import type { RE2JS } from 're2js';
import { isReserved } from '../../util/reserved-dirs.js';
import { workspaceFailure } from '../failure.js';
import { splitLines } from '../text-lines.js';
import { walkWorkspace } from '../walk.js';
import { runBuiltinSearch } from './builtin-search.js';
import { MAX_QUERY_CHARS } from './query-limits.js';
import { RipgrepPatternError, ripgrepAvailable, ripgrepMatches } from './ripgrep.js';
import { type SearchHit, searchHit } from './search-hit.js';

export type { SearchHit } from './search-hit.js';

/** Files larger than this are not searched (both backends). */
export const MAX_SEARCH_FILE_BYTES = 1024 * 1024;
/** Largest compiled RE2 program accepted (instructions). */
export const MAX_PROGRAM_SIZE = 10_000;
const BUILTIN_DEADLINE_MS = 15_000;
const RIPGREP_TIMEOUT_MS = 10_000;

/** What a search found. */
export interface SearchOutcome {
  results: SearchHit[];
  truncated: boolean;
  backend: 'rg' | 'builtin';
  /** True when the search stopped at its time limit (results are what was found by then). */
  timedOut: boolean;
}

/** Why a query cannot be searched. */
export interface QueryError {
  readonly ok: false;
  readonly error_type: 'invalid_regex' | 'regex_too_complex';
  readonly error_message: string;
}

/** Options for {@link searchWorkspace}. */
export interface SearchOptions {
  root: string;
  /** The resolved base: a directory or a file, relative and absolute. */
  base: { relative: string; absolute: string; kind: 'file' | 'directory' };
  query: string;
  isRegex: boolean;
  /** A compiled glob filter (see `globFilter`). */
  matchesGlob: (entry: { path: string; name: string }) => boolean;
  caseSensitive: boolean;
  contextLines: number;
  maxResults: number;
  useRipgrep: boolean;
  signal?: AbortSignal;
}

/** A query compiled for the in-process search: the pattern and flags the worker recompiles. */
export interface CompiledQuery {
  readonly pattern: string;
  readonly flags: number;
}

let re2: Promise<typeof import('re2js')> | undefined;

/**
 * Compiles the query with RE2 semantics (linear time). Literal queries are quoted. Refuses
 * queries over 1,000 characters and patterns whose compiled program exceeds 10,000 instructions
 * (`regex_too_complex`), and invalid patterns (`invalid_regex`).
 */
export async function compileQuery(
  query: string,
  isRegex: boolean,
  caseSensitive: boolean,
): Promise<CompiledQuery | QueryError> {
  if (query.length > MAX_QUERY_CHARS) {
    return workspaceFailure(
      'regex_too_complex',
      `the query is longer than ${MAX_QUERY_CHARS} characters`,
    );
  }
  re2 ??= import('re2js');
  const { RE2JS } = await re2;
  const pattern = isRegex ? query : RE2JS.quote(query);
  const flags = caseSensitive ? 0 : RE2JS.CASE_INSENSITIVE;
  let compiled: RE2JS;
  try {
    compiled = RE2JS.compile(pattern, flags);
  } catch (error) {
    const message = error instanceof Error ? error.message : 'unreadable pattern';
    return workspaceFailure(
      'invalid_regex',
      `invalid regular expression: ${message.slice(0, 200)}`,
    );
  }
  if (compiled.programSize() > MAX_PROGRAM_SIZE) {
    return workspaceFailure(
      'regex_too_complex',
      `the regular expression is too complex (its program has more than ${MAX_PROGRAM_SIZE} instructions); simplify it or use a literal query`,
    );
  }
  return { pattern, flags };
}

const decoder = new TextDecoder('utf-8', { fatal: true });

/** Lines of a searchable file, or undefined for special, large, binary (any NUL) or non-UTF-8 files. */
async function searchableLines(absolute: string): Promise<string[] | undefined> {
  let handle: Awaited<ReturnType<typeof open>> | undefined;
  try {
    handle = await open(absolute, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
    const stats = await handle.stat();
    if (!stats.isFile() || stats.size > MAX_SEARCH_FILE_BYTES) return undefined;
    const bytes = await handle.readFile();
    if (bytes.length > MAX_SEARCH_FILE_BYTES || bytes.includes(0)) return undefined;
    return splitLines(decoder.decode(bytes));
  } catch {
    return undefined;
  } finally {
    await handle?.close();
  }
}

const byPath = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);
const nameOf = (relative: string): string => relative.slice(relative.lastIndexOf('/') + 1);

/** ripgrep walks and matches; we keep its files that pass the glob, in path order, and read their lines. */
async function searchWithRipgrep(
  options: SearchOptions,
): Promise<SearchOutcome | QueryError | undefined> {
  let found: Map<string, Set<number>>;
  try {
    found = await ripgrepMatches({
      root: options.root,
      base: options.base.relative,
      query: options.query,
      isRegex: options.isRegex,
      caseSensitive: options.caseSensitive,
      maxFileBytes: MAX_SEARCH_FILE_BYTES,
      timeoutMs: RIPGREP_TIMEOUT_MS,
      maxMatches: 100_000,
      ...(options.signal ? { signal: options.signal } : {}),
    });
  } catch (error) {
    // A pattern ripgrep refused is refused: running it in process instead is what stalled hosts.
    if (error instanceof RipgrepPatternError) {
      return workspaceFailure(
        error.kind === 'too_complex' ? 'regex_too_complex' : 'invalid_regex',
        error.message,
      );
    }
    if (options.signal?.aborted) throw error;
    return undefined;
  }
  const results: SearchHit[] = [];
  const paths = [...found.keys()]
    .filter((relative) => !isReserved(path.join(options.root, relative)))
    .filter(
      (relative) =>
        options.base.kind === 'file' ||
        options.matchesGlob({ path: relative, name: nameOf(relative) }),
    )
    .sort(byPath);
  for (const relative of paths) {
    const lines = await searchableLines(path.join(options.root, relative));
    if (!lines) continue;
    for (const lineNumber of [...found.get(relative)!].sort((a, b) => a - b)) {
      if (lineNumber > lines.length) continue;
      results.push(searchHit(relative, lines, lineNumber - 1, options.contextLines));
      if (results.length > options.maxResults) {
        return {
          results: results.slice(0, options.maxResults),
          truncated: true,
          backend: 'rg',
          timedOut: false,
        };
      }
    }
  }
  return { results, truncated: false, backend: 'rg', timedOut: false };
}

/**
 * The native-`includes` prefilter for a literal query, when it can never miss a match: always
 * when case-sensitive; when case-insensitive only for ASCII queries without `k` or `s` (the only
 * ASCII letters RE2 also folds with non-ASCII ones: the Kelvin sign, the long s).
 */
function literalPrefilter(
  options: SearchOptions,
): { needle: string; foldCase: boolean } | undefined {
  if (options.isRegex || options.query.includes('\n')) return undefined;
  if (options.caseSensitive) return { needle: options.query, foldCase: false };
  // biome-ignore lint/suspicious/noControlCharactersInRegex: the whole ASCII range is meant
  if (/^[\u0000-\u007f]*$/.test(options.query) && !/[ks]/i.test(options.query)) {
    return { needle: options.query.toLowerCase(), foldCase: true };
  }
  return undefined;
}

/**
 * Searches workspace files line by line. Candidates: regular files (no symlink followed, hidden
 * files included, ignore files not honoured), matching the glob on path or name, at most 1 MiB,
 * neither binary nor non-UTF-8, in path order. When ripgrep is available it walks and matches
 * (the documented rules as flags); otherwise a light walk feeds an RE2 search on a worker thread
 * that is terminated at the deadline. Both give the same results in the same order. Stops after
 * `maxResults` hits (`truncated`).
 */
export async function searchWorkspace(
  options: SearchOptions,
  compiled: CompiledQuery,
): Promise<SearchOutcome | QueryError> {
  if (options.useRipgrep && (await ripgrepAvailable())) {
    const outcome = await searchWithRipgrep(options);
    if (outcome) return outcome;
  }
  let files: { path: string; absolute: string }[];
  if (options.base.kind === 'file') {
    files = [{ path: options.base.relative, absolute: options.base.absolute }];
  } else {
    const walk = await walkWorkspace(options.root, options.base.absolute, {
      recursive: true,
      stats: false,
      ...(options.signal ? { signal: options.signal } : {}),
    });
    files = walk.entries
      .filter((entry) => entry.type === 'file' && options.matchesGlob(entry))
      .map((entry) => ({ path: entry.path, absolute: entry.absolute }))
      .sort((a, b) => byPath(a.path, b.path));
  }
  const { hits, timedOut } = await runBuiltinSearch({
    pattern: compiled.pattern,
    flags: compiled.flags,
    files,
    contextLines: options.contextLines,
    maxResults: options.maxResults,
    maxFileBytes: MAX_SEARCH_FILE_BYTES,
    prefilter: !options.isRegex || !/[\^$]|\\[Az]|\(\?/.test(options.query),
    literal: literalPrefilter(options),
    deadlineMs: BUILTIN_DEADLINE_MS,
    signal: options.signal,
  });
  const truncated = hits.length > options.maxResults;
  return {
    results: truncated ? hits.slice(0, options.maxResults) : hits,
    truncated: truncated || timedOut,
    backend: 'builtin',
    timedOut,
  };
}
