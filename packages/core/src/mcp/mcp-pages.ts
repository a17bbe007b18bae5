/** Most pages one listing reads. */
const MAX_PAGES = 100;
/** Most items one listing returns. */
const MAX_ITEMS = 1000;

/** One page of a listing and the cursor of the next one (none on the last page). */
export interface McpPage<T> {
  readonly items: readonly T[];
  readonly nextCursor?: string | undefined;
}

/**
 * Every page of a cursor-paginated listing (`tools/list`, `resources/list`, `prompts/list`),
 * bounded: at most 100 pages and 1,000 items.
 */
export async function listPages<T>(
  page: (cursor: string | undefined) => Promise<McpPage<T>>,
): Promise<T[]> {
  const out: T[] = [];
  let cursor: string | undefined;
  for (let read = 0; read < MAX_PAGES && out.length < MAX_ITEMS; read += 1) {
    const result = await page(cursor);
    out.push(...result.items);
    cursor = result.nextCursor;
    if (!cursor) break;
  }
  return out.slice(0, MAX_ITEMS);
}
