import type { InvocationContext } from '../context/invocation-context.js';
import {
  isToolMedia,
  MAX_INLINE_MEDIA_CHARS,
  type ToolMedia,
  type ToolMediaReference,
  vouchForMedia,
} from '../tool/tool-media.js';
import { mediaHoldsSecret } from '../util/redact.js';
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
  keep: string[],
): Promise<ToolMedia | ToolMediaReference | { description: string }> {
  const bytes = Buffer.from(part.data, 'base64');
  // Neither saved nor sent: media is never rewritten, so one holding a credential is withheld.
  if (mediaHoldsSecret(part.data, bytes))
    return { description: `[${part.type} withheld: it held a registered credential]` };
  // Only what we know: a handle the tool made up is not carried over.
  const plain: ToolMedia = { type: part.type, mime_type: part.mime_type, data: part.data };
  const inline = part.data.length <= MAX_INLINE_MEDIA_CHARS;
  const reference: ToolMediaReference = {
    type: part.type,
    mime_type: part.mime_type,
    bytes: bytes.length,
  };
  if (bytes.length > budget.maxPersistBytes) return inline ? vouchForMedia(plain) : reference;
  try {
    const handle = await persistToStore(
      bytes,
      resultStem(call.callId, `media-${index}`),
      mediaExtension(part.mime_type),
      budget,
      call.context,
      keep,
    );
    keep.push(handle);
    return inline ? vouchForMedia({ ...plain, handle }) : { ...reference, handle };
  } catch {
    // Nothing saved: the part still reaches the model inline, or is described.
    return inline ? vouchForMedia(plain) : reference;
  }
}

/**
 * A part's fields read once, into a plain object (a getter cannot answer one thing to the check
 * and another to the save), the MIME type in lower case; `undefined` unless it is well-formed.
 */
function snapshot(part: unknown): ToolMedia | undefined {
  if (typeof part !== 'object' || part === null) return undefined;
  try {
    const { type, mime_type: mime, data } = part as Record<string, unknown>;
    const media = {
      type,
      mime_type: typeof mime === 'string' ? mime.toLowerCase() : mime,
      data,
    };
    return isToolMedia(media) ? media : undefined;
  } catch {
    return undefined;
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
  /** Handles the result's other outputs were saved under (retention keeps them). */
  saved: readonly string[] = [],
): Promise<unknown[]> {
  const kept: unknown[] = [];
  const keep = [...saved];
  // One after another: each save applies the session's retention, and parallel passes over the
  // same folder would race each other's removals.
  for (const [index, part] of parts.slice(0, MAX_MEDIA_PARTS).entries()) {
    const media = snapshot(part);
    kept.push(
      media
        ? await keepMedia(media, index, call, budget, keep)
        : { description: '[media that could not be read]' },
    );
  }
  if (parts.length > MAX_MEDIA_PARTS) {
    kept.push({ description: `[${parts.length - MAX_MEDIA_PARTS} more media parts were dropped]` });
  }
  return kept;
}
