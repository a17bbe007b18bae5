import { workspaceFailure } from './failure.js';
import { splitLines } from './text-lines.js';

const CURLY_TO_STRAIGHT: Record<string, string> = {
  '“': '"',
  '”': '"',
  '„': '"',
  '‘': "'",
  '’': "'",
  '‚': "'",
};

/** Curly quotes → straight quotes (same length, so indexes carry over). */
export function normalizeQuotes(text: string): string {
  return text.replace(/[“”„‘’‚]/g, (quote) => CURLY_TO_STRAIGHT[quote]!);
}

function straightToCurly(text: string): string {
  return text.replace(/"/g, '“').replace(/'/g, '‘');
}

/** Non-overlapping occurrences of `needle` in `text`. */
export function countOccurrences(text: string, needle: string): number {
  if (needle === '') return 0;
  let count = 0;
  for (
    let index = text.indexOf(needle);
    index !== -1;
    index = text.indexOf(needle, index + needle.length)
  )
    count += 1;
  return count;
}

/** The needle actually present in the text, and whether quote normalisation was needed to find it. */
export function findNeedle(
  text: string,
  needle: string,
): { needle: string; normalized: boolean } | undefined {
  if (text.includes(needle)) return { needle, normalized: false };
  for (const candidate of [normalizeQuotes(needle), straightToCurly(needle)]) {
    if (candidate !== needle && text.includes(candidate))
      return { needle: candidate, normalized: true };
  }
  const index = normalizeQuotes(text).indexOf(normalizeQuotes(needle));
  if (index !== -1) return { needle: text.slice(index, index + needle.length), normalized: true };
  return undefined;
}

type DiffChars = typeof import('diff').diffChars;

/** Similarity of two strings in [0, 1]: 2 × shared characters / total length. */
export function similarity(a: string, b: string, diffChars: DiffChars): number {
  if (a.length + b.length === 0) return 1;
  let shared = 0;
  for (const part of diffChars(a, b)) if (!part.added && !part.removed) shared += part.value.length;
  return (2 * shared) / (a.length + b.length);
}

const snippet = (line: string): string => (line.length > 160 ? `${line.slice(0, 157)}...` : line);

/** Up to five lines most like the needle, for `snippet_not_found`. */
export function nearbyCandidates(
  text: string,
  needle: string,
  diffChars: DiffChars,
): { line: number; text: string; snippet: string; score: number }[] {
  const target = normalizeQuotes(needle.trim());
  const probe = target.slice(0, Math.min(4, target.length));
  const lines = splitLines(text);
  const candidates: { line: number; text: string; snippet: string; score: number }[] = [];
  const firstLine = target.split('\n')[0] ?? target;
  lines.forEach((line, index) => {
    const normalized = normalizeQuotes(line.trim());
    if (normalized === '') return;
    const score = similarity(firstLine, normalized, diffChars);
    if ((probe !== '' && normalized.includes(probe)) || score > 0.45) {
      candidates.push({
        line: index + 1,
        text: line.trim(),
        snippet: snippet(line.trim()),
        score: Math.round(score * 1000) / 1000,
      });
    }
  });
  return candidates.sort((a, b) => b.score - a.score || a.line - b.line).slice(0, 5);
}

/** Lines (1-based) that contain a single-line needle, up to 20. */
export function matchingLines(
  text: string,
  needle: string,
): { line: number; text: string; snippet: string }[] {
  if (needle.includes('\n')) return [];
  const out: { line: number; text: string; snippet: string }[] = [];
  splitLines(text).forEach((line, index) => {
    if (out.length < 20 && line.includes(needle))
      out.push({ line: index + 1, text: line.trim(), snippet: snippet(line.trim()) });
  });
  return out;
}

/** One edit's request. */
export interface EditRequest {
  old_text: string;
  new_text: string;
  expected_replacements?: number | undefined;
  replace_all?: boolean | undefined;
}

/** The outcome of applying one edit to text in memory. */
export type EditOutcome =
  | {
      ok: true;
      text: string;
      replacements: number;
      used_quote_normalization: boolean;
      matches: number;
    }
  | { ok: false; error_type: string; error_message: string; [key: string]: unknown };

/**
 * Applies one edit: exact match first, then quote-normalised; refuses when the needle is absent
 * (`snippet_not_found` with `nearby_candidates`) or, without `replace_all`, when the number of
 * occurrences differs from `expected_replacements` (`ambiguous_edit` with `matches`).
 */
export function applyEdit(text: string, edit: EditRequest, diffChars: DiffChars): EditOutcome {
  if (edit.old_text === '') {
    return workspaceFailure('missing_old_text', 'old_text must not be empty');
  }
  const expected = Math.max(1, edit.expected_replacements ?? 1);
  const found = findNeedle(text, edit.old_text);
  if (!found) {
    return workspaceFailure('snippet_not_found', 'old_text was not found in the file', {
      occurrences: 0,
      nearby_candidates: nearbyCandidates(text, edit.old_text, diffChars),
      suggested_action:
        'Use one of nearby_candidates as old_text, or re-read the file with line numbers and copy the exact text.',
    });
  }
  const occurrences = countOccurrences(text, found.needle);
  if (!edit.replace_all && occurrences !== expected) {
    return workspaceFailure(
      'ambiguous_edit',
      `old_text occurs ${occurrences} times, expected ${expected}`,
      {
        occurrences,
        expected_replacements: expected,
        matches: matchingLines(text, found.needle),
        suggested_action:
          'Add surrounding lines to old_text so it is unique, or set replace_all / expected_replacements.',
      },
    );
  }
  const limit = edit.replace_all ? occurrences : expected;
  let out = '';
  let from = 0;
  for (let done = 0; done < limit; done += 1) {
    const index = text.indexOf(found.needle, from);
    out += text.slice(from, index) + edit.new_text;
    from = index + found.needle.length;
  }
  out += text.slice(from);
  return {
    ok: true,
    text: out,
    replacements: limit,
    used_quote_normalization: found.normalized,
    matches: occurrences,
  };
}
