import type { ToolResult } from '../gateway/results.js';
import { TOOL_MEDIA_FIELD, type ToolMedia } from '../tool/tool-media.js';

/** Content parts of one MCP result kept at most (the rest are counted, not kept). */
export const MAX_MCP_CONTENT_PARTS = 100;
/** Characters of an embedded text resource kept inline (the host reads the whole one with `readResource`). */
export const MAX_EMBEDDED_RESOURCE_CHARS = 8000;

type Part = Record<string, unknown>;

const str = (value: unknown): string | undefined => (typeof value === 'string' ? value : undefined);

function annotationsOf(part: Part): Part {
  const annotations = part['annotations'];
  return typeof annotations === 'object' && annotations !== null ? { annotations } : {};
}

/** One MCP content part as the model sees it; images and audio go to `media`. */
function reducePart(part: Part, media: ToolMedia[]): Part {
  const type = str(part['type']) ?? 'unknown';
  switch (type) {
    case 'text':
      return { type, text: str(part['text']) ?? '', ...annotationsOf(part) };
    case 'image':
    case 'audio': {
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

/**
 * Maps an MCP `CallToolResult` to a KsADK result: `isError` → `mcp_tool_error`; text parts joined
 * into `text`; images and audio moved to `media` (adapters hand them to multimodal models, never as
 * base64 text) with a reference in `content`; embedded resources and resource links kept as
 * structured references (embedded text cut at {@link MAX_EMBEDDED_RESOURCE_CHARS}, blobs counted,
 * not inlined); annotations, structured content and `_meta` kept. At most
 * {@link MAX_MCP_CONTENT_PARTS} parts.
 */
export function mapMcpCallResult(result: {
  content?: unknown;
  structuredContent?: unknown;
  isError?: unknown;
  _meta?: unknown;
}): ToolResult {
  const raw = Array.isArray(result.content) ? result.content : [];
  const media: ToolMedia[] = [];
  const content = raw
    .slice(0, MAX_MCP_CONTENT_PARTS)
    .filter((part): part is Part => typeof part === 'object' && part !== null)
    .map((part) => reducePart(part, media));
  const text = content
    .filter((part) => part['type'] === 'text')
    .map((part) => part['text'] as string)
    .join('\n');
  const extras = {
    ...(raw.length > MAX_MCP_CONTENT_PARTS
      ? { content_parts_dropped: raw.length - MAX_MCP_CONTENT_PARTS }
      : {}),
    ...(media.length > 0 ? { [TOOL_MEDIA_FIELD]: media } : {}),
    ...(result.structuredContent !== undefined
      ? { structured_content: result.structuredContent }
      : {}),
    ...(result._meta !== undefined ? { _meta: result._meta } : {}),
  };
  if (result.isError === true) {
    return {
      ok: false,
      error_type: 'mcp_tool_error',
      error_message: (text || 'The MCP tool reported an error.').slice(0, 2000),
      content,
      ...extras,
    };
  }
  return { ok: true, content, ...(text ? { text } : {}), ...extras };
}
