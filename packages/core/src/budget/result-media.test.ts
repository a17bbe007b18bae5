import { randomBytes } from 'node:crypto';
import { mkdtemp, readdir, rm, symlink } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runWithInvocationContext } from '../context/invocation-context.js';
import { createToolGateway } from '../gateway/create-tool-gateway.js';
import type { ToolResult } from '../gateway/results.js';
import { defineJsonSchemaTool } from '../tool/define-tool.js';
import {
  describeMediaInResult,
  MAX_INLINE_MEDIA_CHARS,
  TOOL_MEDIA_FIELD,
  takeToolMedia,
} from '../tool/tool-media.js';
import { MAX_MEDIA_PARTS } from './result-media.js';
import { readPersistedOutput, sessionResultDir } from './result-store.js';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'ksadk-media-'));
});
afterEach(() => rm(dir, { recursive: true, force: true }));

const acme = { accountId: 'acme', sessionId: 's1' };

/** A tool that returns whatever media it is given, next to a little text. */
function mediaTool(media: unknown[]) {
  return defineJsonSchemaTool({
    name: 'screenshot',
    description: 'Takes a screenshot.',
    inputSchema: { type: 'object', properties: {} },
    execute: () => ({ ok: true, text: 'the page', [TOOL_MEDIA_FIELD]: media }),
  });
}

function gateway() {
  return createToolGateway({ env: {}, approvalMode: 'full', budget: { persistDir: dir } });
}

const invoke = (media: unknown[], callId = 'call_1'): Promise<ToolResult> =>
  runWithInvocationContext(acme, () => gateway().invoke(mediaTool(media), {}, { callId }));

describe('media in tool results', () => {
  it('a 300 KB image is kept whole as media with a handle, never counted as text or cut into a base64 preview', async () => {
    const bytes = randomBytes(300 * 1024);
    const data = bytes.toString('base64');
    const result = await invoke([{ type: 'image', mime_type: 'image/png', data }]);
    expect(result).toMatchObject({ ok: true, text: 'the page' });
    expect(result['result_truncated']).toBeUndefined();
    const [part] = result[TOOL_MEDIA_FIELD] as { data: string; handle: string }[];
    expect(part).toMatchObject({ type: 'image', mime_type: 'image/png', data });
    expect(part!.handle).toBe('tool-results://call_1.media-0.png');
    // The host reads the saved bytes back — from the caller's own account and session only.
    const g = gateway();
    expect(await readPersistedOutput(part!.handle, g.budget, acme)).toEqual(bytes);
    expect(
      await readPersistedOutput(part!.handle, g.budget, { accountId: 'other', sessionId: 's1' }),
    ).toBeUndefined();
    expect(
      await readPersistedOutput('tool-results://../acme/s1/call_1.media-0.png', g.budget, acme),
    ).toBeUndefined();
    // A model that cannot see images is told where it was saved, and gets no base64.
    const described = JSON.stringify(describeMediaInResult(result));
    expect(described).toContain('saved as tool-results://call_1.media-0.png');
    expect(described).not.toContain(data.slice(0, 100));
    // One that can gets it attached, with the handle next to it.
    const { result: rest, media } = takeToolMedia(result);
    expect(media).toHaveLength(1);
    expect(rest[TOOL_MEDIA_FIELD]).toEqual([
      { type: 'image', mime_type: 'image/png', attached: 0, handle: part!.handle },
    ]);
  });

  it('an image too large to send inline keeps only its size and handle', async () => {
    const bytes = randomBytes(Math.ceil((MAX_INLINE_MEDIA_CHARS * 3) / 4) + 3);
    const result = await invoke([
      { type: 'image', mime_type: 'image/jpeg', data: bytes.toString('base64') },
    ]);
    const [part] = result[TOOL_MEDIA_FIELD] as Record<string, unknown>[];
    expect(part).toEqual({
      type: 'image',
      mime_type: 'image/jpeg',
      bytes: bytes.length,
      handle: 'tool-results://call_1.media-0.jpg',
    });
    expect(JSON.stringify(result).length).toBeLessThan(1_000);
    const { media, result: rest } = takeToolMedia(result);
    expect(media).toEqual([]);
    expect(JSON.stringify(rest)).toMatch(/image\/jpeg, \d+ KB: not shown.*saved as tool-results/);
    expect(
      (await readPersistedOutput(part!['handle'] as string, gateway().budget, acme))?.length,
    ).toBe(bytes.length);
  });

  it('a handle the tool made up is dropped; malformed parts are described; at most 16 parts', async () => {
    const png = randomBytes(32).toString('base64');
    const parts = [
      {
        type: 'image',
        mime_type: 'image/png',
        data: png,
        handle: 'tool-results://../../etc/passwd',
      },
      { type: 'image', mime_type: 'image/png', data: 'not base64!' },
      { type: 'image', mime_type: 'text/html', data: png },
      '__proto__',
      ...Array.from({ length: MAX_MEDIA_PARTS }, () => ({
        type: 'audio',
        mime_type: 'audio/wav',
        data: png,
      })),
    ];
    const result = await invoke(parts);
    const kept = result[TOOL_MEDIA_FIELD] as Record<string, unknown>[];
    expect(kept).toHaveLength(MAX_MEDIA_PARTS + 1);
    expect(kept[0]!['handle']).toBe('tool-results://call_1.media-0.png');
    expect(kept[1]).toEqual({ description: '[media that could not be read]' });
    expect(kept[2]).toEqual({ description: '[media that could not be read]' });
    expect(kept.at(-1)).toEqual({ description: '[4 more media parts were dropped]' });
    expect(kept[4]!['handle']).toBe('tool-results://call_1.media-4.wav');
    const saved = await readdir(sessionResultDir(dir, acme));
    expect(saved).toHaveLength(MAX_MEDIA_PARTS - 3);
  });

  it('a session folder planted as a symlink saves nothing, and the image still reaches the model', async () => {
    const outside = await mkdtemp(path.join(tmpdir(), 'ksadk-outside-'));
    try {
      const accountDir = path.join(dir, 'acme');
      await rm(accountDir, { recursive: true, force: true });
      await import('node:fs/promises').then((fs) => fs.mkdir(accountDir, { mode: 0o700 }));
      await symlink(outside, sessionResultDir(dir, acme));
      const data = randomBytes(64).toString('base64');
      const result = await invoke([{ type: 'image', mime_type: 'image/png', data }]);
      expect(result[TOOL_MEDIA_FIELD]).toEqual([{ type: 'image', mime_type: 'image/png', data }]);
      expect(await readdir(outside)).toEqual([]);
    } finally {
      await rm(outside, { recursive: true, force: true });
    }
  });
});
