import { readFile } from 'node:fs/promises';
import type { RE2JS } from 're2js';
import { splitLines } from '../text-lines.js';
import { globFilter, type SkippedEntry, type WalkEntry, walkWorkspace } from '../walk.js';
import { ripgrepAvailable, ripgrepMatches } from './ripgrep.js';

/** Files larger than this are not searched (both backends). */
export const MAX_SEARCH_FILE_BYTES = 1024 * 1024;
const BUILTIN_DEADLINE_MS = 15_000;
const RIPGREP_TIMEOUT_MS = 10_000;

/** One matching line. */
export interface SearchHit {
  path: string;
  /** 1-based. */
  line: number;
  text: string;
  snippet: string;
  context_before: string[];
  context_after: string[];
}

/** What a search found. */
export interface SearchOutcome {
  results: SearchHit[];
  truncated: boolean;
  backend: 'rg' | 'builtin';
  skipped: SkippedEntry[];
  /** True when the built-in search stopped at its time limit. */
  timedOut: boolean;
}

/** Options for {@link searchWorkspace}. */
export interface SearchOptions {
  root: string;
  /** The resolved base: a directory or a file, relative and absolute. */
  base: { relative: string; absolute: string; kind: 'file' | 'directory' };
  query: string;
  isRegex: boolean;
  glob?: string | null | undefined;
  caseSensitive: boolean;
  contextLines: number;
  maxResults: number;
  useRipgrep: boolean;
  signal?: AbortSignal;
}

let re2: Promise<typeof import('re2js')> | undefined;

/**
 * Compiles the query with RE2 semantics (linear time: no pattern can hang the search). Literal
 * queries are quoted. Returns the error message for an invalid pattern.
 */
export async function compileQuery(
  query: string,
  isRegex: boolean,
  caseSensitive: boolean,
): Promise<RE2JS | string> {
  re2 ??= import('re2js');
  const { RE2JS } = await re2;
  try {
    return RE2JS.compile(
      isRegex ? query : RE2JS.quote(query),
      caseSensitive ? 0 : RE2JS.CASE_INSENSITIVE,
    );
  } catch (error) {
    return error instanceof Error ? error.message : String(error);
  }
}

const decoder = new TextDecoder('utf-8', { fatal: true });

/** Lines of a searchable file, or undefined for binary (any NUL byte) or non-UTF-8 files. */
async function searchableLines(absolute: string): Promise<string[] | undefined> {
  const bytes = await readFile(absolute);
  if (bytes.length > MAX_SEARCH_FILE_BYTES || bytes.includes(0)) return undefined;
  try {
    return splitLines(decoder.decode(bytes));
  } catch {
    return undefined;
  }
}

function hit(path: string, lines: string[], index: number, contextLines: number): SearchHit {
  const text = lines[index]!;
  return {
    path,
    line: index + 1,
    text,
    snippet: text.trim().length > 240 ? `${text.trim().slice(0, 237)}...` : text.trim(),
    context_before: lines.slice(Math.max(0, index - contextLines), index),
    context_after: lines.slice(index + 1, index + 1 + contextLines),
  };
}

/**
 * Searches workspace files line by line. Candidates come from one walk (no symlinks followed,
 * glob on path or name, at most 1 MiB, binary and non-UTF-8 files skipped), in path order; the
 * matching is done by ripgrep when available, otherwise in process with RE2 — both give the same
 * results in the same order. Stops after `maxResults` hits (`truncated`).
 */
export async function searchWorkspace(
  options: SearchOptions,
  matcher: RE2JS,
): Promise<SearchOutcome> {
  let candidates: WalkEntry[];
  let skipped: SkippedEntry[] = [];
  if (options.base.kind === 'file') {
    candidates = [
      {
        path: options.base.relative,
        name: options.base.relative.split('/').pop()!,
        absolute: options.base.absolute,
        type: 'file',
        size: 0,
        mtimeNs: 0n,
      },
    ];
  } else {
    const walk = await walkWorkspace(options.root, options.base.absolute, {
      recursive: true,
      signal: options.signal,
    });
    skipped = walk.skipped;
    const matches = await globFilter(options.glob);
    candidates = walk.entries.filter(
      (entry) => entry.type === 'file' && entry.size <= MAX_SEARCH_FILE_BYTES && matches(entry),
    );
  }
  candidates.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  const results: SearchHit[] = [];

  if (options.useRipgrep && (await ripgrepAvailable())) {
    try {
      const found = await ripgrepMatches({
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
      for (const candidate of candidates) {
        const lineNumbers = found.get(candidate.path);
        if (!lineNumbers) continue;
        const lines = await searchableLines(candidate.absolute);
        if (!lines) continue;
        for (const lineNumber of [...lineNumbers].sort((a, b) => a - b)) {
          if (lineNumber > lines.length) continue;
          results.push(hit(candidate.path, lines, lineNumber - 1, options.contextLines));
          if (results.length > options.maxResults) {
            return {
              results: results.slice(0, options.maxResults),
              truncated: true,
              backend: 'rg',
              skipped,
              timedOut: false,
            };
          }
        }
      }
      return { results, truncated: false, backend: 'rg', skipped, timedOut: false };
    } catch {
      results.length = 0; // fall back to the built-in search
    }
  }

  const deadline = Date.now() + BUILTIN_DEADLINE_MS;
  for (const candidate of candidates) {
    options.signal?.throwIfAborted();
    if (Date.now() > deadline)
      return { results, truncated: true, backend: 'builtin', skipped, timedOut: true };
    const lines = await searchableLines(candidate.absolute);
    if (!lines) continue;
    for (let index = 0; index < lines.length; index += 1) {
      if (!matcher.test(lines[index]!)) continue;
      results.push(hit(candidate.path, lines, index, options.contextLines));
      if (results.length > options.maxResults) {
        return {
          results: results.slice(0, options.maxResults),
          truncated: true,
          backend: 'builtin',
          skipped,
          timedOut: false,
        };
      }
    }
  }
  return { results, truncated: false, backend: 'builtin', skipped, timedOut: false };
}
