import type { ToolResult } from '../gateway/results.js';
import { TOOL_MEDIA_FIELD, type ToolMedia } from '../tool/tool-media.js';
import { isPlainObject } from '../util/plain-object.js';
import { mcpFailure } from './failure.js';

/** Content parts of one MCP result sent inline at most (the rest go to the saved copy). */
export const MAX_MCP_CONTENT_PARTS = 100;
/** Characters of an embedded text resource kept inline (the host reads the whole one with `readResource`). */
export const MAX_EMBEDDED_RESOURCE_CHARS = 8000;
/** The field that holds the parts past the inline cap; it is always saved, never sent inline. */
export const MCP_CONTENT_OVERFLOW_FIELD = 'content_overflow';

type Part = Record<string, unknown>;

const str = (value: unknown): string | undefined => (typeof value === 'string' ? value : undefined);

function annotationsOf(part: Part): Part {
  const annotations = part['annotations'];
  return typeof annotations === 'object' && annotations !== null ? { annotations } : {};
}

/** A media part past the inline cap: described, its bytes not kept (the model reads no base64). */
function describedMedia(type: string, part: Part): Part {
  const data = str(part['data']) ?? '';
  return {
    type,
    mime_type: str(part['mimeType']) ?? 'application/octet-stream',
    bytes: Math.floor((data.length * 3) / 4),
    note: 'past the inline cap of parts; not kept',
  };
}

/** One MCP content part as the model sees it; images and audio go to `media` when `media` is given. */
function reducePart(part: Part, media: ToolMedia[] | undefined): Part {
  const type = str(part['type']) ?? 'unknown';
  switch (type) {
    case 'text':
      return { type, text: str(part['text']) ?? '', ...annotationsOf(part) };
    case 'image':
    case 'audio': {
      if (!media) return describedMedia(type, part);
      const mime = str(part['mimeType']) ?? 'application/octet-stream';
      const data = str(part['data']) ?? '';
      media.push({ type, mime_type: mime, data });
      return { type, mime_type: mime, media: media.length - 1, ...annotationsOf(part) };
    }
    case 'resource': {
      const resource = (part['resource'] ?? {}) as Part;
      const text = str(resource['text']);
      const blob = str(resource['blob']);
      return {
        type,
        uri: str(resource['uri']) ?? '',
        ...(str(resource['mimeType']) ? { mime_type: resource['mimeType'] } : {}),
        ...(text !== undefined
          ? text.length > MAX_EMBEDDED_RESOURCE_CHARS
            ? {
                text: text.slice(0, MAX_EMBEDDED_RESOURCE_CHARS),
                truncated: true,
                original_chars: text.length,
              }
            : { text }
          : {}),
        ...(blob !== undefined ? { blob_bytes: Math.floor((blob.length * 3) / 4) } : {}),
        ...annotationsOf(part),
      };
    }
    case 'resource_link':
      return {
        type,
        uri: str(part['uri']) ?? '',
        ...(str(part['name']) ? { name: part['name'] } : {}),
        ...(str(part['description']) ? { description: part['description'] } : {}),
        ...(str(part['mimeType']) ? { mime_type: part['mimeType'] } : {}),
        ...annotationsOf(part),
      };
    default:
      return { type };
  }
}

/** Strings and objects structured content may hold, looked at before giving up (a hostile server). */
const MAX_STRUCTURED_NODES = 100_000;

/**
 * Structured content with media taken out: an `{ type: 'image'|'audio', data, mimeType }` object
 * moves to `media` (a reference stays), and a string equal to a media part's data becomes a
 * reference — no base64 of media reaches the model's text, wherever the server put it.
 */
function withoutMedia(value: unknown, media: ToolMedia[]): unknown {
  const known = new Map(media.map((item, index) => [item.data, index]));
  let budget = MAX_STRUCTURED_NODES;
  const visit = (node: unknown, depth: number): unknown => {
    if (budget-- <= 0 || depth > 64) return node;
    if (typeof node === 'string') {
      const index = known.get(node);
      return index === undefined || node.length < 64 ? node : `[media ${index}]`;
    }
    if (Array.isArray(node)) return node.map((item) => visit(item, depth + 1));
    if (!isPlainObject(node)) return node;
    const type = str(node['type']);
    const data = str(node['data']);
    if ((type === 'image' || type === 'audio') && data !== undefined && data.length >= 64) {
      let index = known.get(data);
      if (index === undefined) {
        media.push({
          type,
          mime_type: str(node['mimeType']) ?? str(node['mime_type']) ?? 'application/octet-stream',
          data,
        });
        index = media.length - 1;
        known.set(data, index);
      }
      const { data: _data, ...rest } = node;
      return { ...rest, media: index };
    }
    const out: Part = {};
    for (const [key, item] of Object.entries(node)) out[key] = visit(item, depth + 1);
    return out;
  };
  return visit(value, 0);
}

/** Whether `text` is already inside `structured`: its JSON serialisation, or one of its strings. */
function textIsInStructured(text: string, structured: unknown): boolean {
  if (text === '') return true;
  try {
    if (JSON.stringify(JSON.parse(text)) === JSON.stringify(structured)) return true;
  } catch {
    // Not JSON: look for it among the strings.
  }
  let budget = MAX_STRUCTURED_NODES;
  const holds = (node: unknown, depth: number): boolean => {
    if (budget-- <= 0 || depth > 64) return false;
    if (typeof node === 'string') return node === text;
    if (Array.isArray(node)) return node.some((item) => holds(item, depth + 1));
    return isPlainObject(node) && Object.values(node).some((item) => holds(item, depth + 1));
  };
  return holds(structured, 0);
}

/**
 * Maps an MCP `CallToolResult` to a KsADK result in which the model gets each piece of text once
 * and no base64 of media:
 * - `isError` → `mcp_tool_error` (the message from the text, cut at 2,000 characters);
 * - the text parts are joined into `text` (all of them, past the inline cap too); in `content`
 *   a text part keeps its place as `{ type: 'text' }`, and `content` is left out when it holds
 *   nothing else;
 * - structured content is kept with its media taken out; when the text only repeats it (its JSON
 *   serialisation, as the spec asks servers to send, or one of its strings), `text` is left out;
 * - images and audio move to `media` (adapters hand them to multimodal models), a reference stays;
 * - embedded resources and resource links are kept as references (embedded text cut at
 *   {@link MAX_EMBEDDED_RESOURCE_CHARS}, blobs counted);
 * - at most {@link MAX_MCP_CONTENT_PARTS} parts inline: the rest are in
 *   {@link MCP_CONTENT_OVERFLOW_FIELD}, which the budget always saves to the result store.
 */
export function mapMcpCallResult(result: {
  content?: unknown;
  structuredContent?: unknown;
  isError?: unknown;
  _meta?: unknown;
}): ToolResult {
  const raw = (Array.isArray(result.content) ? result.content : []).filter(isPlainObject);
  const media: ToolMedia[] = [];
  const parts = raw.slice(0, MAX_MCP_CONTENT_PARTS).map((part) => reducePart(part, media));
  const overflow = raw.slice(MAX_MCP_CONTENT_PARTS).map((part) => reducePart(part, undefined));
  const text = [...parts, ...overflow]
    .filter((part) => part['type'] === 'text')
    .map((part) => part['text'] as string)
    .join('\n');
  const structured =
    result.structuredContent === undefined
      ? undefined
      : withoutMedia(result.structuredContent, media);
  const textRepeated = structured !== undefined && textIsInStructured(text, structured);
  // In `content`, a text part keeps its place; its text is in `text` (or structured content).
  const content = parts.map((part) =>
    part['type'] === 'text' ? { type: 'text', ...annotationsOf(part) } : part,
  );
  const onlyText = content.every((part) => part['type'] === 'text' && !('annotations' in part));
  const extras = {
    ...(onlyText ? {} : { content }),
    ...(overflow.length > 0
      ? { content_parts_dropped: overflow.length, [MCP_CONTENT_OVERFLOW_FIELD]: overflow }
      : {}),
    ...(media.length > 0 ? { [TOOL_MEDIA_FIELD]: media } : {}),
    ...(structured !== undefined ? { structured_content: structured } : {}),
    ...(result._meta !== undefined ? { _meta: result._meta } : {}),
  };
  if (result.isError === true) {
    return mcpFailure(
      'mcp_tool_error',
      (text || 'The MCP tool reported an error.').slice(0, 2000),
      extras,
    );
  }
  return { ok: true, ...(text && !textRepeated ? { text } : {}), ...extras };
}
