import type { ToolResult } from '@ksadk/core';
import { takeToolMedia } from '@ksadk/core/adapter';
import type { ToolOutputImage, ToolOutputText } from '@openai/agents';

/** What an OpenAI Agents tool hands the model: the result as JSON, or that text and its images. */
export type OpenAIAgentsToolOutput = string | (ToolOutputText | ToolOutputImage)[];

/**
 * What the model gets from a call's result: the result as JSON text, or — when it carries images —
 * its JSON without them, then each image as the SDK's structured `image` output (the Responses API
 * shows it to the model as an `input_image`). Audio, and media too large to send inline, is
 * described, with its `tool-results://` handle: function outputs take no audio.
 *
 * @example
 * ```ts
 * const output = modelOutputOf(await gateway.invoke(renderChart, {}));
 * ```
 */
export function modelOutputOf(result: ToolResult): OpenAIAgentsToolOutput {
  const { result: rest, media } = takeToolMedia(result, { accept: ['image'] });
  const text = JSON.stringify(rest);
  if (media.length === 0) return text;
  return [
    { type: 'text', text },
    ...media.map(
      (part): ToolOutputImage => ({
        type: 'image',
        image: { data: part.data, mediaType: part.mime_type },
      }),
    ),
  ];
}
