import { createToolGateway, defineTool } from '@ksadk/core';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { toAdkTools } from './to-adk-tools.js';

const png = Buffer.from('89504e470d0a1a0a0000000d49484452', 'hex').toString('base64');

describe('media in ADK function responses', () => {
  it('is described in the one JSON object ADK sends back, never dumped as base64', async () => {
    const chart = defineTool({
      name: 'render_chart',
      description: 'Renders a chart.',
      input: z.object({}),
      execute: () => ({ ok: true, media: [{ type: 'image', mime_type: 'image/png', data: png }] }),
    });
    const [tool] = toAdkTools([chart], { gateway: createToolGateway({ env: {} }) });
    const context = {
      userId: 'u',
      sessionId: 's',
      invocationId: 'i',
      agentName: 'a',
      functionCallId: 'c1',
      actions: {},
      requestConfirmation: () => undefined,
    };
    const result = await tool!.runAsync({ args: {}, toolContext: context as never });
    expect(JSON.stringify(result)).not.toContain(png);
    expect(result).toMatchObject({
      ok: true,
      media: [
        { type: 'image', mime_type: 'image/png', description: expect.stringContaining('16 bytes') },
      ],
    });
  });
});
