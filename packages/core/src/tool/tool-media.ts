import type { ToolResult } from '../gateway/results.js';

/** An image or a sound a tool returned, for a model that can look at or listen to it. */
export interface ToolMedia {
  readonly type: 'image' | 'audio';
  /** `image/png`, `audio/wav`, … */
  readonly mime_type: string;
  /** The bytes, base64-encoded. */
  readonly data: string;
}

/**
 * The field of a tool result that carries its media (`{ ok: true, …, media: [ToolMedia…] }`).
 * Adapters take it out before the result becomes text: a framework whose model accepts images in
 * tool results gets them as content blocks; elsewhere each is replaced by a short description.
 */
export const TOOL_MEDIA_FIELD = 'media';

/** Media larger than this (base64 characters) is described, never sent inline. @default 4 MiB of base64 */
export const MAX_INLINE_MEDIA_CHARS = 4 * 1024 * 1024;

const MIME = /^(image|audio)\/[a-z0-9.+-]{1,64}$/i;
const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

function isMedia(value: unknown): value is ToolMedia {
  if (typeof value !== 'object' || value === null) return false;
  const { type, mime_type: mime, data } = value as Record<string, unknown>;
  return (
    (type === 'image' || type === 'audio') &&
    typeof mime === 'string' &&
    MIME.test(mime) &&
    mime.toLowerCase().startsWith(`${type}/`) &&
    typeof data === 'string' &&
    data.length % 4 === 0 &&
    BASE64.test(data)
  );
}

/** What a model is told about a media part it cannot see. */
export function describeToolMedia(media: ToolMedia): string {
  const bytes =
    Math.floor((media.data.length * 3) / 4) - (media.data.match(/=+$/)?.[0].length ?? 0);
  const size = bytes >= 1024 ? `${Math.round(bytes / 1024)} KB` : `${bytes} bytes`;
  return `[${media.type} ${media.mime_type}, ${size}: not shown to the model here]`;
}

/**
 * Splits a tool result into the result without its media (each media part replaced by a short
 * description in `media`, so the JSON stays small and says what was there) and the media parts
 * themselves, for the adapter to attach where the model API accepts them (`accept`: the media
 * types it can attach; default both). Parts of other types, parts that are not well-formed base64
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
  options: { accept?: readonly ToolMedia['type'][] } = {},
): { result: ToolResult; media: ToolMedia[] } {
  const parts = (result as Record<string, unknown>)[TOOL_MEDIA_FIELD];
  if (!Array.isArray(parts) || parts.length === 0) return { result, media: [] };
  const accept = new Set(options.accept ?? ['image', 'audio']);
  const media: ToolMedia[] = [];
  const described = parts.map((part) => {
    if (isMedia(part) && accept.has(part.type) && part.data.length <= MAX_INLINE_MEDIA_CHARS) {
      media.push(part);
      return { type: part.type, mime_type: part.mime_type, attached: media.length - 1 };
    }
    return isMedia(part)
      ? { type: part.type, mime_type: part.mime_type, description: describeToolMedia(part) }
      : { description: '[media that could not be read]' };
  });
  return { result: { ...result, [TOOL_MEDIA_FIELD]: described } as ToolResult, media };
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
    [TOOL_MEDIA_FIELD]: parts.map((part) =>
      isMedia(part)
        ? { type: part.type, mime_type: part.mime_type, description: describeToolMedia(part) }
        : { description: '[media that could not be read]' },
    ),
  } as ToolResult;
}
