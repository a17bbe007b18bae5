import { createToolGateway, defineTool } from '@ksadk/core';
import type { ToolMessage } from '@langchain/core/messages';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { toLangGraphTools } from './to-langgraph-tools.js';

const png = Buffer.from('89504e470d0a1a0a0000000d49484452', 'hex').toString('base64');

describe('media in LangGraph tool messages', () => {
  it('images and sounds become standard content blocks next to the JSON text; the artifact keeps the whole result', async () => {
    const chart = defineTool({
      name: 'render_chart',
      description: 'Renders a chart.',
      input: z.object({}),
      execute: () => ({ ok: true, media: [{ type: 'image', mime_type: 'image/png', data: png }] }),
    });
    const [tool] = toLangGraphTools([chart], { gateway: createToolGateway({ env: {} }) });
    const message = (await tool!.invoke({
      name: 'render_chart',
      args: {},
      id: 'c1',
      type: 'tool_call',
    })) as ToolMessage;
    expect(message.content).toEqual([
      { type: 'text', text: expect.stringContaining('"attached":0') },
      { type: 'image', mimeType: 'image/png', data: png },
    ]);
    expect((message.content as { text?: string }[])[0]?.text).not.toContain(png);
    expect(message.artifact).toMatchObject({ ok: true, media: [{ data: png }] });
  });
});
