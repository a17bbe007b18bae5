import type { InvocationContext } from '../context/invocation-context.js';
import type { ToolResult } from '../gateway/results.js';
import {
  isToolMedia,
  MAX_INLINE_MEDIA_CHARS,
  TOOL_MEDIA_FIELD,
  type ToolMedia,
  type ToolMediaReference,
} from '../tool/tool-media.js';
import { mediaExtension } from './media-extensions.js';
import type { ResultBudget } from './result-budget.js';
import { persistToStore, resultStem } from './result-store.js';

/** The call a result's media came from. */
interface MediaCall {
  readonly callId: string;
  readonly context: InvocationContext;
}

/** Media parts kept per result; more are dropped with a note. */
export const MAX_MEDIA_PARTS = 16;

/**
 * Saves one media part in the caller's own result folder and returns it with its
 * `tool-results://` handle. A part too large to send inline keeps only the handle and its size;
 * a part that cannot be saved (too large for a file, a refused folder) is kept as it was.
 */
async function keepMedia(
  part: ToolMedia,
  index: number,
  call: MediaCall,
  budget: ResultBudget,
): Promise<ToolMedia | ToolMediaReference> {
  const bytes = Buffer.from(part.data, 'base64');
  // Only what we know: a handle the tool made up is not carried over.
  const plain: ToolMedia = { type: part.type, mime_type: part.mime_type, data: part.data };
  const inline = part.data.length <= MAX_INLINE_MEDIA_CHARS;
  const reference: ToolMediaReference = {
    type: part.type,
    mime_type: part.mime_type,
    bytes: bytes.length,
  };
  if (bytes.length > budget.maxPersistBytes) return inline ? plain : reference;
  try {
    const handle = await persistToStore(
      bytes,
      resultStem(call.callId, `media-${index}`),
      mediaExtension(part.mime_type),
      budget,
      call.context,
    );
    return inline ? { ...plain, handle } : { ...reference, handle };
  } catch {
    // Nothing saved: the part still reaches the model inline, or is described.
    return inline ? plain : reference;
  }
}

/**
 * The result's media parts, each saved to the result store (so a model that cannot see it gets a
 * handle, and the host can read it back with `readPersistedOutput`); at most
 * {@link MAX_MEDIA_PARTS}. Malformed parts become descriptions.
 */
export async function keepResultMedia(
  parts: readonly unknown[],
  call: MediaCall,
  budget: ResultBudget,
): Promise<unknown[]> {
  const kept = await Promise.all(
    parts
      .slice(0, MAX_MEDIA_PARTS)
      .map((part, index) =>
        isToolMedia(part)
          ? keepMedia(part, index, call, budget)
          : { description: '[media that could not be read]' },
      ),
  );
  if (parts.length > MAX_MEDIA_PARTS) {
    kept.push({ description: `[${parts.length - MAX_MEDIA_PARTS} more media parts were dropped]` });
  }
  return kept;
}

/** The media field of a result, when it has one. */
export function mediaOf(result: ToolResult): unknown[] | undefined {
  const parts = (result as Record<string, unknown>)[TOOL_MEDIA_FIELD];
  return Array.isArray(parts) && parts.length > 0 ? parts : undefined;
}
