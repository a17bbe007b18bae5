import type {
  ImageBlockParam,
  MessageParam,
  TextBlockParam,
  ToolResultBlockParam,
} from '@anthropic-ai/sdk/resources/messages/messages';
import {
  type ToolCallBatch as CoreToolCallBatch,
  type ToolCallDecision,
  takeToolMedia,
} from '@ksadk/core/adapter';

export type {
  BatchedToolCall,
  PendingToolCall,
  SavedToolCall,
  ToolCallDecision,
} from '@ksadk/core/adapter';

/** The result of running one assistant turn's `tool_use` blocks, with the answers for Claude. */
export interface ToolUseBatch extends CoreToolCallBatch {
  /** `tool_result` blocks for the calls that are done, in the model's order. */
  toolResults(): ToolResultBlockParam[];
  /**
   * The user message that answers the turn: every `tool_result` (Anthropic wants them all, first,
   * in the next user message). Send it only when `done`.
   */
  userMessage(): MessageParam & { content: ToolResultBlockParam[] };
  /**
   * Applies the host's decisions (keyed by `tool_use_id` or approval id) through the gateway and
   * re-runs the decided calls; approved ones run once, rejected ones answer `approval_rejected`.
   */
  resume(decisions: Readonly<Record<string, ToolCallDecision>>): Promise<ToolUseBatch>;
}

/** The image types Anthropic's image blocks take; other media is described in the text. */
const IMAGE_TYPES = ['image/jpeg', 'image/png', 'image/gif', 'image/webp'] as const;
type ImageType = (typeof IMAGE_TYPES)[number];

/** One call's `tool_result`: the result as JSON text, its images as image blocks, failures flagged. */
function toolResultOf(outcome: CoreToolCallBatch['calls'][number]): ToolResultBlockParam {
  const { result, media } = takeToolMedia(outcome.result, {
    accept: ['image'],
    mimeTypes: IMAGE_TYPES,
  });
  const text: TextBlockParam = { type: 'text', text: JSON.stringify(result) };
  const images: ImageBlockParam[] = media.map((part) => ({
    type: 'image',
    source: { type: 'base64', media_type: part.mime_type as ImageType, data: part.data },
  }));
  return {
    type: 'tool_result',
    tool_use_id: outcome.callId,
    content: images.length === 0 ? text.text : [text, ...images],
    ...(result['ok'] === false ? { is_error: true } : {}),
  };
}

/** Core's batch with Anthropic's `tool_result` blocks on top. */
export function withToolResults(batch: CoreToolCallBatch): ToolUseBatch {
  const toolResults = (): ToolResultBlockParam[] =>
    batch.calls.filter((outcome) => outcome.status === 'done').map(toolResultOf);
  return {
    calls: batch.calls,
    pending: batch.pending,
    done: batch.done,
    toJSON: () => batch.toJSON(),
    toolResults,
    userMessage: () => ({ role: 'user', content: toolResults() }),
    resume: async (decisions) => withToolResults(await batch.resume(decisions)),
  };
}
