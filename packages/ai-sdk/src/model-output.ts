import type { ToolResult } from '@ksadk/core';
import { takeToolMedia } from '@ksadk/core/adapter';

/** The AI SDK's model-facing output of a tool call (`toModelOutput`'s answer). */
export type AiSdkModelOutput =
  | { type: 'json'; value: ToolResult }
  | {
      type: 'content';
      value: (
        | { type: 'text'; text: string }
        | { type: 'image-data'; data: string; mediaType: string }
        | { type: 'file-data'; data: string; mediaType: string }
      )[];
    };

/**
 * What the model gets from a call's result: the result as JSON, or — when it carries images or
 * audio — its JSON without them as text, then each medium as the SDK's `image-data` or `file-data`
 * part (the provider sends them as its API allows, or describes them). Media too large to send
 * inline is described, with its `tool-results://` handle.
 */
export function modelOutputOf(output: unknown): AiSdkModelOutput {
  const result = (
    typeof output === 'object' && output !== null ? output : { ok: true, value: output }
  ) as ToolResult;
  const { result: rest, media } = takeToolMedia(result);
  if (media.length === 0) return { type: 'json', value: rest };
  return {
    type: 'content',
    value: [
      { type: 'text', text: JSON.stringify(rest) },
      ...media.map((part) =>
        part.type === 'image'
          ? { type: 'image-data' as const, data: part.data, mediaType: part.mime_type }
          : { type: 'file-data' as const, data: part.data, mediaType: part.mime_type },
      ),
    ],
  };
}
