import { describe, expect, it } from 'vitest';
import type { ToolResult } from '../gateway/results.js';
import {
  describeMediaInResult,
  MAX_INLINE_MEDIA_CHARS,
  TOOL_MEDIA_FIELD,
  takeToolMedia,
} from './tool-media.js';

const png = Buffer.from('89504e470d0a1a0a0000000d49484452', 'hex').toString('base64');
const image = { type: 'image', mime_type: 'image/png', data: png } as const;
const audio = { type: 'audio', mime_type: 'audio/wav', data: 'UklGRg==' } as const;

describe('tool media', () => {
  it('takes well-formed media out of the result and leaves a small description in its place', () => {
    const result: ToolResult = { ok: true, text: 'a chart', [TOOL_MEDIA_FIELD]: [image, audio] };
    const { result: rest, media } = takeToolMedia(result, { accept: ['image'] });
    expect(media).toEqual([image]);
    expect(rest[TOOL_MEDIA_FIELD]).toEqual([
      { type: 'image', mime_type: 'image/png', attached: 0 },
      {
        type: 'audio',
        mime_type: 'audio/wav',
        description: '[audio audio/wav, 4 bytes: not shown to the model here]',
      },
    ]);
    expect(JSON.stringify(rest)).not.toContain(png);
    expect(result[TOOL_MEDIA_FIELD]).toEqual([image, audio]); // the input is not changed
  });

  it('describes what it cannot vouch for: bad base64, a mime type of another kind, oversized, junk', () => {
    const hostile = [
      { type: 'image', mime_type: 'image/png', data: 'not base64!' },
      { type: 'image', mime_type: 'text/html', data: png },
      { type: 'image', mime_type: 'image/png', data: 'A'.repeat(MAX_INLINE_MEDIA_CHARS + 4) },
      { type: 'image', mime_type: 'image/svg+xml;x=1', data: png },
      '__proto__',
      null,
    ];
    const { result, media } = takeToolMedia({ ok: true, [TOOL_MEDIA_FIELD]: hostile });
    expect(media).toEqual([]);
    const described = result[TOOL_MEDIA_FIELD] as { description: string }[];
    expect(described).toHaveLength(hostile.length);
    expect(described[2]?.description).toMatch(/^\[image image\/png, 3072 KB/);
    expect(JSON.stringify(result).length).toBeLessThan(2000);
  });

  it('describes every part for a model that cannot take media; results without media pass unchanged', () => {
    const plain: ToolResult = { ok: true, text: 'x' };
    expect(takeToolMedia(plain).result).toBe(plain);
    expect(describeMediaInResult(plain)).toBe(plain);
    const described = describeMediaInResult({ ok: true, [TOOL_MEDIA_FIELD]: [image] });
    expect(described[TOOL_MEDIA_FIELD]).toEqual([
      {
        type: 'image',
        mime_type: 'image/png',
        description: '[image image/png, 16 bytes: not shown to the model here]',
      },
    ]);
  });
});
