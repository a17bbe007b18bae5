import type { ToolResult } from '@ksadk/core';
import { takeToolMedia } from '@ksadk/core/adapter';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';

/** The scheme of the handles the gateway gives outputs too large for the result. */
export const RESULT_SCHEME = 'tool-results://';

/** At most this many resource links per result. */
const MAX_LINKS = 32;

type Content = CallToolResult['content'][number];

/** The `tool-results://` handles a result names: its saved outputs and media kept aside. */
function handlesOf(result: Record<string, unknown>): { uri: string; mimeType?: string }[] {
  const found = new Map<string, string | undefined>();
  const saved = result['persisted_outputs'];
  if (typeof saved === 'object' && saved !== null) {
    for (const output of Object.values(saved as Record<string, unknown>)) {
      const { path, mime_type } = (output ?? {}) as { path?: unknown; mime_type?: unknown };
      if (typeof path === 'string' && path.startsWith(RESULT_SCHEME))
        found.set(path, typeof mime_type === 'string' ? mime_type : undefined);
    }
  }
  return [...found].slice(0, MAX_LINKS).map(([uri, mimeType]) => ({
    uri,
    ...(mimeType ? { mimeType } : {}),
  }));
}

/**
 * A gateway result as MCP's `CallToolResult`: the result without its media as JSON text and as
 * `structuredContent`, each image or audio part as MCP image/audio content, a `resource_link` for
 * each output the gateway saved aside (readable back with `resources/read` by the same principal),
 * and `isError` for a failed call — the `{ ok: false, error_type, error_message }` the model reads.
 */
export function callResultOf(result: ToolResult): CallToolResult {
  const { result: rest, media } = takeToolMedia(result);
  const content: Content[] = [{ type: 'text', text: JSON.stringify(rest) }];
  for (const part of media) {
    content.push({
      type: part.type === 'audio' ? 'audio' : 'image',
      data: part.data,
      mimeType: part.mime_type,
    });
  }
  for (const { uri, mimeType } of handlesOf(rest as Record<string, unknown>)) {
    const name = uri.slice(RESULT_SCHEME.length);
    content.push({ type: 'resource_link', uri, name, ...(mimeType ? { mimeType } : {}) });
  }
  return {
    content,
    structuredContent: rest as Record<string, unknown>,
    ...(rest['ok'] === false ? { isError: true } : {}),
  };
}
