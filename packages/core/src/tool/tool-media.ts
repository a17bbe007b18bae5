import type { ToolResult } from '../gateway/results.js';

/** An image or a sound a tool returned, for a model that can look at or listen to it. */
export interface ToolMedia {
  readonly type: 'image' | 'audio';
  /** `image/png`, `audio/wav`, … */
  readonly mime_type: string;
  /** The bytes, base64-encoded. */
  readonly data: string;
  /** Where the gateway saved it (`tool-results://…`, in the caller's own account and session). */
  readonly handle?: string;
}

/** Media too large to send inline: only its size and, when it was saved, its handle. */
export interface ToolMediaReference {
  readonly type: 'image' | 'audio';
  readonly mime_type: string;
  /** Its size in bytes. */
  readonly bytes: number;
  /** Where the gateway saved it, when it could. */
  readonly handle?: string;
}

/**
 * The field of a tool result that carries its media (`{ ok: true, …, media: [ToolMedia…] }`).
 * Adapters take it out before the result becomes text: a framework whose model accepts images in
 * tool results gets them as content blocks; elsewhere each is replaced by a short description.
 */
export const TOOL_MEDIA_FIELD = 'media';

/** Media larger than this (base64 characters) is described, never sent inline. @default 4 MiB of base64 */
export const MAX_INLINE_MEDIA_CHARS = 4 * 1024 * 1024;

const MIME = /^(image|audio)\/[a-z0-9][a-z0-9.+-]{0,63}$/;
const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

/**
 * Media parts the gateway checked and froze: checking 4 MiB of base64 takes tens of
 * milliseconds, so the parts of a gateway result are not checked again downstream.
 */
const vetted = new WeakSet<object>();

/** Freezes a part that {@link isToolMedia} accepted, so later checks of it are free. @internal */
export function vouchForMedia<T extends ToolMedia>(part: T): T {
  vetted.add(Object.freeze(part));
  return part;
}

/** Whether the gateway checked (and froze) this part. @internal */
export const isVettedMedia = (value: unknown): boolean =>
  typeof value === 'object' && value !== null && vetted.has(value);

/** Whether a value is a well-formed media part: an image or audio MIME type and base64 data. */
export function isToolMedia(value: unknown): value is ToolMedia {
  if (typeof value !== 'object' || value === null) return false;
  if (vetted.has(value)) return true;
  const { type, mime_type: mime, data } = value as Record<string, unknown>;
  return (
    (type === 'image' || type === 'audio') &&
    typeof mime === 'string' &&
    MIME.test(mime) &&
    mime.toLowerCase().startsWith(`${type}/`) &&
    typeof data === 'string' &&
    data.length > 0 &&
    data.length % 4 === 0 &&
    BASE64.test(data)
  );
}

function isMediaReference(value: unknown): value is ToolMediaReference {
  if (typeof value !== 'object' || value === null) return false;
  const { type, mime_type: mime, bytes, handle, data } = value as Record<string, unknown>;
  return (
    (type === 'image' || type === 'audio') &&
    typeof mime === 'string' &&
    MIME.test(mime) &&
    typeof bytes === 'number' &&
    data === undefined &&
    (handle === undefined || typeof handle === 'string')
  );
}

/** How many `=` end a base64 string (at most 2 in well-formed data). */
const paddingOf = (data: string): number => (data.endsWith('==') ? 2 : data.endsWith('=') ? 1 : 0);

/** What a model is told about a media part it cannot see (with its handle when it was saved). */
export function describeToolMedia(media: ToolMedia | ToolMediaReference): string {
  const bytes =
    'bytes' in media
      ? media.bytes
      : Math.floor((media.data.length * 3) / 4) - paddingOf(media.data);
  const size = bytes >= 1024 ? `${Math.round(bytes / 1024)} KB` : `${bytes} bytes`;
  const saved = media.handle ? `; saved as ${media.handle}` : '';
  return `[${media.type} ${media.mime_type}, ${size}: not shown to the model here${saved}]`;
}

/** A media part the model does not get, as the short description that replaces it. */
function described(part: unknown): Record<string, unknown> {
  if (isToolMedia(part) || isMediaReference(part)) {
    return {
      type: part.type,
      mime_type: part.mime_type,
      ...(part.handle ? { handle: part.handle } : {}),
      description: describeToolMedia(part),
    };
  }
  const note = (part as { description?: unknown } | null)?.description;
  return {
    description: typeof note === 'string' ? note.slice(0, 200) : '[media that could not be read]',
  };
}

/**
 * Splits a tool result into the result without its media (each media part replaced by a short
 * description in `media`, so the JSON stays small and says what was there) and the media parts
 * themselves, for the adapter to attach where the model API accepts them (`accept`: the media
 * types it can attach, default both; `mimeTypes`: the formats it takes). Parts of other types or formats, parts that are not well-formed base64
 * image/audio, and parts larger than {@link MAX_INLINE_MEDIA_CHARS} stay described only.
 *
 * @example
 * ```ts
 * const { result, media } = takeToolMedia(await gateway.invoke(tool, args));
 * const text = JSON.stringify(result); // no base64 in the model's text
 * const blocks = media.map((m) => ({ type: 'image', mimeType: m.mime_type, data: m.data }));
 * ```
 */
export function takeToolMedia(
  result: ToolResult,
  options: {
    accept?: readonly ToolMedia['type'][];
    /** The MIME types the model API takes (Anthropic: JPEG, PNG, GIF, WebP); others are described. @default any */
    mimeTypes?: readonly string[];
  } = {},
): { result: ToolResult; media: ToolMedia[] } {
  const parts = (result as Record<string, unknown>)[TOOL_MEDIA_FIELD];
  if (!Array.isArray(parts) || parts.length === 0) return { result, media: [] };
  const accept = new Set(options.accept ?? ['image', 'audio']);
  const mimeTypes = options.mimeTypes ? new Set(options.mimeTypes) : undefined;
  const media: ToolMedia[] = [];
  const kept = parts.map((part) => {
    if (
      isToolMedia(part) &&
      accept.has(part.type) &&
      (!mimeTypes || mimeTypes.has(part.mime_type)) &&
      part.data.length <= MAX_INLINE_MEDIA_CHARS
    ) {
      media.push(part);
      return {
        type: part.type,
        mime_type: part.mime_type,
        attached: media.length - 1,
        ...(part.handle ? { handle: part.handle } : {}),
      };
    }
    return described(part);
  });
  return { result: { ...result, [TOOL_MEDIA_FIELD]: kept } as ToolResult, media };
}

/**
 * The result for a model that cannot take media in tool results: every media part replaced by
 * its description.
 */
export function describeMediaInResult(result: ToolResult): ToolResult {
  const parts = (result as Record<string, unknown>)[TOOL_MEDIA_FIELD];
  if (!Array.isArray(parts) || parts.length === 0) return result;
  return {
    ...result,
    [TOOL_MEDIA_FIELD]: parts.map(described),
  } as ToolResult;
}
