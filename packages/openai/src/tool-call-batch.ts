import type { ToolCallBatch as CoreToolCallBatch, ToolCallDecision } from '@ksadk/core/adapter';
import { describeMediaInResult, takeToolMedia } from '@ksadk/core/adapter';
import type { ChatCompletionToolMessageParam } from 'openai/resources/chat/completions';
import type { ResponseInputItem } from 'openai/resources/responses/responses';

export type {
  BatchedToolCall,
  PendingToolCall,
  SavedToolCall,
  ToolCallDecision,
} from '@ksadk/core/adapter';

/** The result of running one assistant turn's tool calls, with the OpenAI answers for the model. */
export interface ToolCallBatch extends CoreToolCallBatch {
  /** Tool messages (Chat Completions) for the calls that are done, in call order. */
  toolMessages(): ChatCompletionToolMessageParam[];
  /** `function_call_output` items (Responses) for the calls that are done, in call order. */
  functionCallOutputs(): ResponseInputItem.FunctionCallOutput[];
  /**
   * Applies the host's decisions (keyed by call id or approval id) through the gateway and
   * re-runs the decided calls; approved ones run once, rejected ones answer
   * `approval_rejected`. Undecided calls stay pending.
   */
  resume(decisions: Readonly<Record<string, ToolCallDecision>>): Promise<ToolCallBatch>;
}

type Outcome = CoreToolCallBatch['calls'][number];

/**
 * A Responses `function_call_output`: the result as text, and its images as `input_image` items
 * the model can look at (audio is described: function outputs take no audio).
 */
function functionCallOutput(outcome: Outcome): ResponseInputItem.FunctionCallOutput {
  const { result, media } = takeToolMedia(outcome.result, { accept: ['image'] });
  const text = JSON.stringify(result);
  return {
    type: 'function_call_output',
    call_id: outcome.callId,
    output:
      media.length === 0
        ? text
        : [
            { type: 'input_text', text },
            ...media.map((part) => ({
              type: 'input_image' as const,
              image_url: `data:${part.mime_type};base64,${part.data}`,
              detail: 'auto' as const,
            })),
          ],
  };
}

/** Core's batch with the two OpenAI APIs' answers for the model on top. */
export function withOpenAIOutputs(batch: CoreToolCallBatch): ToolCallBatch {
  const done = () => batch.calls.filter((outcome) => outcome.status === 'done');
  return {
    calls: batch.calls,
    pending: batch.pending,
    done: batch.done,
    toJSON: () => batch.toJSON(),
    // Chat Completions tool messages carry text only: media is described, never dumped as base64.
    toolMessages: () =>
      done().map((outcome) => ({
        role: 'tool',
        tool_call_id: outcome.callId,
        content: JSON.stringify(describeMediaInResult(outcome.result)),
      })),
    functionCallOutputs: () => done().map(functionCallOutput),
    resume: async (decisions) => withOpenAIOutputs(await batch.resume(decisions)),
  };
}
