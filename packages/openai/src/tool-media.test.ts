import { createToolGateway, defineTool } from '@ksadk/core';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { runToolCalls } from './run-tool-calls.js';

const png = Buffer.from('89504e470d0a1a0a0000000d49484452', 'hex').toString('base64');
const chart = defineTool({
  name: 'render_chart',
  description: 'Renders a chart.',
  input: z.object({}),
  execute: () => ({
    ok: true,
    text: 'a bar chart',
    media: [
      { type: 'image', mime_type: 'image/png', data: png },
      { type: 'audio', mime_type: 'audio/wav', data: 'UklGRg==' },
    ],
  }),
});

describe('media in OpenAI tool outputs', () => {
  it('Responses gets the image as input_image; Chat Completions gets descriptions, never base64 text', async () => {
    const batch = await runToolCalls(
      [{ type: 'function_call', call_id: 'c1', name: 'render_chart', arguments: '{}' } as never],
      { tools: [chart], gateway: createToolGateway({ env: {} }) },
    );
    const [output] = batch.functionCallOutputs();
    expect(output?.output).toEqual([
      { type: 'input_text', text: expect.stringContaining('"attached":0') },
      { type: 'input_image', image_url: `data:image/png;base64,${png}`, detail: 'auto' },
    ]);
    const text = ((output?.output ?? []) as { text?: string }[])[0]?.text ?? '';
    expect(text).not.toContain(png);
    expect(text).toMatch(
      /\[audio audio\/wav, 4 bytes: not shown to the model here; saved as tool-results:\/\/c1\.media-1[^\]]*\.wav\]/,
    );

    const [message] = batch.toolMessages();
    expect(message?.content).not.toContain(png);
    expect(message?.content).toMatch(
      /\[image image\/png, 16 bytes: not shown to the model here; saved as tool-results:\/\/[^\]]+\.png\]/,
    );
  });
});
