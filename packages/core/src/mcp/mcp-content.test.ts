import { describe, expect, it } from 'vitest';
import { takeToolMedia } from '../tool/tool-media.js';
import {
  MAX_EMBEDDED_RESOURCE_CHARS,
  MAX_MCP_CONTENT_PARTS,
  mapMcpCallResult,
} from './mcp-content.js';

const png = Buffer.from('89504e470d0a1a0a0000000d49484452', 'hex').toString('base64');

describe('MCP content for models', () => {
  it('moves images and audio to media, keeps resources and links as references, joins the text', () => {
    const result = mapMcpCallResult({
      content: [
        { type: 'text', text: 'Here is the image:' },
        {
          type: 'image',
          data: png,
          mimeType: 'image/png',
          annotations: { audience: ['user'], priority: 0.5 },
        },
        { type: 'audio', data: 'UklGRg==', mimeType: 'audio/wav' },
        {
          type: 'resource',
          resource: {
            uri: 'demo://text/1',
            mimeType: 'text/plain',
            text: 'x'.repeat(MAX_EMBEDDED_RESOURCE_CHARS + 10),
          },
        },
        {
          type: 'resource',
          resource: { uri: 'demo://blob/1', mimeType: 'application/octet-stream', blob: 'AAAA' },
        },
        {
          type: 'resource_link',
          uri: 'demo://resource/dynamic/blob/1',
          name: 'Blob 1',
          mimeType: 'application/octet-stream',
        },
        { type: 'text', text: 'done' },
        { type: 'something-new', payload: 'kept out' },
      ],
      structuredContent: { temperature: 21 },
    });
    expect(result).toMatchObject({
      ok: true,
      text: 'Here is the image:\ndone',
      structured_content: { temperature: 21 },
    });
    // Each text part keeps its place; its text is in `text`, once.
    expect(result['content']).toEqual([
      { type: 'text' },
      {
        type: 'image',
        mime_type: 'image/png',
        media: 0,
        annotations: { audience: ['user'], priority: 0.5 },
      },
      { type: 'audio', mime_type: 'audio/wav', media: 1 },
      {
        type: 'resource',
        uri: 'demo://text/1',
        mime_type: 'text/plain',
        text: 'x'.repeat(MAX_EMBEDDED_RESOURCE_CHARS),
        truncated: true,
        original_chars: MAX_EMBEDDED_RESOURCE_CHARS + 10,
      },
      {
        type: 'resource',
        uri: 'demo://blob/1',
        mime_type: 'application/octet-stream',
        blob_bytes: 3,
      },
      {
        type: 'resource_link',
        uri: 'demo://resource/dynamic/blob/1',
        name: 'Blob 1',
        mime_type: 'application/octet-stream',
      },
      { type: 'text' },
      { type: 'something-new' },
    ]);
    const { result: forText, media } = takeToolMedia(result);
    expect(media.map((part) => part.mime_type)).toEqual(['image/png', 'audio/wav']);
    expect(JSON.stringify(forText)).not.toContain(png);
  });

  it('bounds the parts kept inline and maps isError', () => {
    const many = mapMcpCallResult({
      content: Array.from({ length: MAX_MCP_CONTENT_PARTS + 5 }, (_, index) => ({
        type: 'text',
        text: `a${index}`,
      })),
    });
    // Only text: no content array at all, the text of every part (those past the cap too) once.
    expect(many['content']).toBeUndefined();
    expect(many['text']).toBe(Array.from({ length: 105 }, (_, index) => `a${index}`).join('\n'));
    expect(many['content_parts_dropped']).toBe(5);
    expect(many['content_overflow']).toHaveLength(5);
    expect(
      mapMcpCallResult({ isError: true, content: [{ type: 'text', text: 'boom' }, null, 7] }),
    ).toMatchObject({
      ok: false,
      error_type: 'mcp_tool_error',
      error_message: 'boom',
    });
  });
});
