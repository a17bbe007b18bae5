import {
  type AskHuman,
  isInputRequired,
  KsadkError,
  type Tool,
  type ToolGateway,
  type ToolProgressEvent,
  type ToolResult,
} from '@ksadk/core';
import {
  type ApprovalPause,
  checkOptions,
  failedResult,
  invokeWithApproval,
  PAUSED,
  parseHumanInputAnswer,
  runWithInvocationDefaults,
  takeToolMedia,
} from '@ksadk/core/adapter';
import { langChainToolSchema } from '@ksadk/core/schema';
import {
  type DynamicStructuredTool,
  tool as langChainTool,
  type ToolRunnableConfig,
} from '@langchain/core/tools';
import { interrupt, isGraphBubbleUp, isGraphInterrupt } from '@langchain/langgraph';

/** Options for {@link toLangGraphTools}. */
export interface LangGraphToolsOptions {
  /** The gateway every call goes through. */
  gateway: ToolGateway;
}

/** The value a KsADK tool interrupts the graph with when a call needs a human decision (core's one pause type). */
export type KsadkApprovalInterrupt = ApprovalPause;

// LangGraph passes its checkpointer to nodes under this configurable key.
const CHECKPOINTER_KEY = '__pregel_checkpointer';

function hasCheckpointer(config: ToolRunnableConfig): boolean {
  return Boolean((config.configurable as Record<string, unknown> | undefined)?.[CHECKPOINTER_KEY]);
}

/** The LangGraph thread is the session when the host set none, so approvals bind to the thread they were asked in. */
function threadDefaults(config: ToolRunnableConfig): { sessionId?: string } {
  const threadId = (config.configurable as Record<string, unknown> | undefined)?.['thread_id'];
  return typeof threadId === 'string' ? { sessionId: threadId } : {};
}

/** The custom stream event a long call's progress becomes. */
export interface KsadkProgressEvent extends ToolProgressEvent {
  readonly type: 'ksadk_progress';
}

/** Writes progress events to the run's custom stream, when it has one. */
function progressWriter(
  config: ToolRunnableConfig,
): ((event: ToolProgressEvent) => void) | undefined {
  const writer = (config as { writer?: (chunk: unknown) => void }).writer;
  if (typeof writer !== 'function') return undefined;
  return (event) => writer({ type: 'ksadk_progress', ...event } satisfies KsadkProgressEvent);
}

async function runThroughGateway(
  tool: Tool,
  gateway: ToolGateway,
  input: unknown,
  config: ToolRunnableConfig,
): Promise<ToolResult> {
  const callId = config.toolCall?.id ?? (config as { toolCallId?: string }).toolCallId;
  // A question the tool asks mid-call (an MCP elicitation) interrupts the graph like an approval;
  // the interrupt is re-thrown once the gateway has stopped the call (it never escapes the gateway).
  let interruption: unknown;
  const askHuman: AskHuman = (request) => {
    if (!hasCheckpointer(config)) return { action: 'decline' };
    try {
      return parseHumanInputAnswer(interrupt(request));
    } catch (error) {
      if (!isGraphInterrupt(error)) throw error;
      interruption = error;
      return PAUSED;
    }
  };
  const outcome = await invokeWithApproval(gateway, tool, input, {
    askHuman,
    // Resume values are matched to interrupt() calls in order: replay the approval, then the answer.
    continuation: 'ask',
    ...(callId ? { callId } : {}),
    ...(config.signal ? { signal: config.signal } : {}),
    // Progress goes to LangGraph's custom stream (`streamMode: 'custom'`), never to the model.
    ...(progressWriter(config) ? { onProgress: progressWriter(config) } : {}),
    // LangGraph re-runs the tool from the start on resume; the gateway hands back the same pending
    // request until it is decided, so the side effect happens only after the decision.
    decide: (pause) => {
      if (!hasCheckpointer(config)) {
        throw new KsadkError(
          'unsupported',
          `Tool "${tool.name}" needs a human decision, and LangGraph can only pause for one with a checkpointer. ` +
            'Create the agent with a checkpointer (for example new MemorySaver()) and run it with a thread_id.',
          { details: { tool: tool.name } },
        );
      }
      return interrupt(pause);
    },
  });
  if (interruption !== undefined && isInputRequired(outcome.result)) throw interruption;
  return outcome.result;
}

/**
 * The tool message content: the result as JSON text, and its images and sounds as LangChain's
 * standard content blocks (`{ type: 'image' | 'audio', mimeType, data }`) that chat model
 * integrations turn into their provider's multimodal parts — never base64 inside the text.
 */
function toolMessageContent(
  result: ToolResult,
):
  | string
  | (
      | { type: 'text'; text: string }
      | { type: 'image' | 'audio'; mimeType: string; data: string }
    )[] {
  const { result: rest, media } = takeToolMedia(result);
  const text = JSON.stringify(rest);
  if (media.length === 0) return text;
  return [
    { type: 'text', text },
    ...media.map((part) => ({ type: part.type, mimeType: part.mime_type, data: part.data })),
  ];
}

/**
 * Converts KsADK tools into LangChain tools for LangGraph agents (`createAgent`,
 * `createReactAgent`, a `ToolNode`). Every call goes through `gateway`. A call that needs
 * approval interrupts the graph with a {@link KsadkApprovalInterrupt}; resume with
 * `new Command({ resume: { decisions: [{ type: 'approve' }] } })` (or `'reject'`, with an
 * optional `message`). The tool runs once, after the decision. Gated calls need a checkpointer;
 * without one they fail with a `KsadkError` (`unsupported`) instead of pausing.
 *
 * Tool messages carry the JSON result as content (plus image and audio content blocks when the
 * result has media) and the whole result object as the artifact.
 *
 * @example
 * ```ts
 * const agent = createAgent({ model, tools: toLangGraphTools([writeNote], { gateway }), checkpointer: new MemorySaver() });
 * const config = { configurable: { thread_id: 't1' } };
 * const paused = await agent.invoke({ messages: [{ role: 'user', content: 'save it' }] }, config);
 * const done = await agent.invoke(new Command({ resume: { decisions: [{ type: 'approve' }] } }), config);
 * ```
 */
export function toLangGraphTools(
  tools: readonly Tool[],
  options: LangGraphToolsOptions,
): DynamicStructuredTool[] {
  checkOptions(options, { gateway: true }, 'toLangGraphTools()');
  return tools.map(
    (tool) =>
      langChainTool(
        async (input: unknown, config: ToolRunnableConfig) => {
          let result: ToolResult;
          try {
            result = await runWithInvocationDefaults(threadDefaults(config), () =>
              runThroughGateway(tool, options.gateway, input, config),
            );
          } catch (error) {
            // The pause (interrupt) and a missing checkpointer must reach LangGraph; anything
            // else is this call's own result, never the whole step's.
            if (
              isGraphBubbleUp(error) ||
              (KsadkError.isInstance(error) && error.code === 'unsupported')
            )
              throw error;
            result = failedResult(error);
          }
          return [toolMessageContent(result), result];
        },
        {
          name: tool.name,
          description: tool.description,
          schema: langChainToolSchema(tool) as never,
          responseFormat: 'content_and_artifact',
          metadata: { ksadk: { group: tool.group, riskLevel: tool.policy.riskLevel } },
        },
      ) as unknown as DynamicStructuredTool,
  );
}
