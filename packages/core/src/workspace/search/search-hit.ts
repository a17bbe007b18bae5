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

/**
 * Builds the hit for line `index` of a file. Self-contained (no imports, no outer names): the
 * in-process search worker runs this very function's source.
 */
export function searchHit(
  path: string,
  lines: string[],
  index: number,
  contextLines: number,
): SearchHit {
  const text = lines[index] as string;
  const trimmed = text.trim();
  return {
    path,
    line: index + 1,
    text,
    snippet: trimmed.length > 240 ? `${trimmed.slice(0, 237)}...` : trimmed,
    context_before: lines.slice(Math.max(0, index - contextLines), index),
    context_after: lines.slice(index + 1, index + 1 + contextLines),
  };
}
