import {
  failureFor,
  isInputRequired,
  TOOL_ERROR_TYPES,
  type Tool,
  type ToolGateway,
  type ToolProgressEvent,
  type ToolResult,
} from '@ksadk/core';
import {
  checkOptions,
  failedResult,
  invokeWithApproval,
  PAUSED,
  parseHumanInputAnswer,
  parseModelArguments,
} from '@ksadk/core/adapter';
import { normalizeOpenAIArguments, openAIToolSchema } from '@ksadk/core/schema';
import type { ChatCompletionMessageToolCall } from 'openai/resources/chat/completions';
import type { ResponseFunctionToolCall } from 'openai/resources/responses/responses';
import {
  type BatchedToolCall,
  batchOf,
  type NormalizedCall,
  type ToolCallBatch,
  type ToolCallDecision,
} from './tool-call-batch.js';

const failure = failureFor(TOOL_ERROR_TYPES);

/** A tool call from either API: a Chat Completions `tool_calls` entry or a Responses `function_call` item. */
export type OpenAIToolCall = ChatCompletionMessageToolCall | ResponseFunctionToolCall;

/** Options for {@link runToolCalls}. */
export interface RunToolCallsOptions {
  /** The tools the model was given (looked up by name). */
  tools: readonly Tool[];
  /** The gateway every call goes through. */
  gateway: ToolGateway;
  /** Must match the `strict` option given to `toOpenAITools`. @default true */
  strict?: boolean;
  /** Aborts running calls. */
  signal?: AbortSignal;
  /** Progress of long calls (an MCP server's progress notifications), for a progress bar; never sent to the model. */
  onProgress?: (event: ToolProgressEvent) => void;
}

function normalizeCall(call: OpenAIToolCall): NormalizedCall {
  if ('function' in call && call.type === 'function') {
    return { callId: call.id, name: call.function.name, arguments: call.function.arguments };
  }
  if ('call_id' in call)
    return { callId: call.call_id, name: call.name, arguments: call.arguments };
  const custom = call as { id?: string; custom?: { name?: string } };
  return { callId: custom.id ?? '', name: custom.custom?.name ?? '', arguments: '' };
}

/**
 * Runs one assistant turn's tool calls through the gateway, concurrently, keeping the model's
 * order. Arguments are parsed, strict-mode nulls are turned back into absent fields, and every
 * call is validated and gated by the gateway. Calls that need approval are returned as
 * `pending`; the host decides and calls `batch.resume(...)`.
 *
 * @example
 * ```ts
 * let batch = await runToolCalls(message.tool_calls ?? [], { tools, gateway });
 * if (!batch.done) batch = await batch.resume({ [batch.pending[0]!.callId]: { type: 'approve' } });
 * messages.push(message, ...batch.toolMessages());
 * ```
 */
export async function runToolCalls(
  calls: readonly OpenAIToolCall[],
  options: RunToolCallsOptions,
): Promise<ToolCallBatch> {
  checkOptions(
    options,
    { tools: true, gateway: true, strict: true, signal: true, onProgress: true },
    'runToolCalls()',
  );
  const run = callRunner(options);
  const normalized = calls.map(normalizeCall);
  const outcomes = await Promise.all(normalized.map((call) => run(call)));
  return batchOf(normalized, outcomes, run);
}

/** Runs one call, whatever happens: a failure becomes that call's own result, never the batch's. */
export type CallRunner = (
  call: NormalizedCall,
  decision?: ToolCallDecision,
  awaiting?: string,
) => Promise<BatchedToolCall>;

/** The function that runs (and re-runs, with the host's decision) one call through the gateway. */
export function callRunner(options: RunToolCallsOptions): CallRunner {
  const byName = new Map(options.tools.map((tool) => [tool.name, tool]));
  const strict = options.strict !== false;
  /** `awaiting`: the approval id or question key `decision` answers (it applies to nothing else). */
  const runOne = async (
    call: NormalizedCall,
    decision?: ToolCallDecision,
    awaiting?: string,
  ): Promise<BatchedToolCall> => {
    const tool = byName.get(call.name);
    if (!tool) {
      const result: ToolResult = failure(
        'unknown_tool',
        `There is no tool named "${call.name}". Available tools: ${[...byName.keys()].join(', ')}.`,
      );
      return { callId: call.callId, toolName: call.name, result, status: 'done' };
    }
    const args = parseArguments(tool, call.arguments, strict);
    const outcome = await invokeWithApproval(options.gateway, tool, args, {
      callId: call.callId,
      ...(options.signal ? { signal: options.signal } : {}),
      ...(options.onProgress ? { onProgress: options.onProgress } : {}),
      // The host's decision applies only to the very request it was given for.
      decide: (pause) =>
        decision !== undefined &&
        (pause.type === 'ksadk_credential'
          ? pause.credential_request.id
          : pause.approval_request.id) === awaiting
          ? decision
          : PAUSED,
      // A question mid-call (an MCP elicitation) pends like an approval; the answer resumes it.
      askHuman: (request) =>
        decision !== undefined && request.request_key === awaiting
          ? parseHumanInputAnswer(decision)
          : PAUSED,
    });
    if (outcome.status === 'done' && isInputRequired(outcome.result)) {
      return {
        callId: call.callId,
        toolName: tool.name,
        result: outcome.result,
        status: 'pending',
        inputRequest: outcome.result.input_request,
      };
    }
    if (outcome.status === 'done') {
      return { callId: call.callId, toolName: tool.name, result: outcome.result, status: 'done' };
    }
    const { pause } = outcome;
    return {
      callId: call.callId,
      toolName: tool.name,
      result: outcome.result,
      status: 'pending',
      ...(pause.type === 'ksadk_credential'
        ? { credentialRequest: pause.credential_request }
        : { approvalRequest: pause.approval_request }),
    };
  };
  return async (call, decision, awaiting) => {
    try {
      return await runOne(call, decision, awaiting);
    } catch (error) {
      return {
        callId: call.callId,
        toolName: call.name,
        result: failedResult(error),
        status: 'done',
      };
    }
  };
}

/**
 * The model's JSON arguments through core's one parser, with strict-mode nulls turned back into
 * absent fields; what cannot be parsed is left as the string for the gateway to refuse.
 */
function parseArguments(tool: Tool, raw: string, strict: boolean): unknown {
  const parsed = parseModelArguments(raw);
  if (!parsed.ok) return raw;
  return normalizeOpenAIArguments(tool, parsed.args, strict && openAIToolSchema(tool).strict);
}
