import { isInputRequired, parseHumanInputAnswer } from '../../tool/human-input.js';
import { PAUSED } from '../../tool/paused.js';
import type { Tool } from '../../tool/tool.js';
import { invokeWithApproval } from '../approval/round-trip.js';
import type { ToolGateway } from '../gateway-types.js';
import { parseModelArguments } from '../model-arguments.js';
import { failedResult, gatewayFailure, type ToolResult } from '../results.js';
import type { ToolProgressEvent } from '../run-with-timeout.js';
import type { BatchedToolCall, CallRunner, ModelToolCall } from './call-batch.js';

/** Options for {@link createCallRunner}. */
export interface CallRunnerOptions {
  /** The tools the model was given (looked up by name). */
  readonly tools: readonly Tool[];
  /** The gateway every call goes through. */
  readonly gateway: ToolGateway;
  /** Aborts running calls. */
  readonly signal?: AbortSignal;
  /** Progress of long calls, for a progress bar; never sent to the model. */
  readonly onProgress?: (event: ToolProgressEvent) => void;
  /**
   * The provider's own argument rule, given the parsed arguments (OpenAI strict mode turns its
   * synthetic nulls back into absent fields here). @default the arguments as parsed
   */
  readonly normalizeArguments?: (tool: Tool, args: Record<string, unknown>) => unknown;
}

/**
 * The function that runs — and, with the host's decision, re-runs — one model tool call through
 * the gateway: the arguments through core's one parser (an `approval` key dropped, size and depth
 * bounded; text that is not JSON is left for the gateway to refuse), an unknown tool answered as
 * such, approvals, questions mid-call and credential requests paused, and a decision applied only
 * to the very request it was given for. Every provider adapter's batch runs on it.
 *
 * @example
 * ```ts
 * const run = createCallRunner({ tools, gateway });
 * const outcomes = await Promise.all(calls.map((call) => run(call)));
 * const batch = toolCallBatch(calls, outcomes, run);
 * ```
 */
export function createCallRunner(options: CallRunnerOptions): CallRunner {
  const byName = new Map(options.tools.map((tool) => [tool.name, tool]));
  const argumentsOf = (tool: Tool, raw: string): unknown => {
    const parsed = parseModelArguments(raw);
    if (!parsed.ok) return raw;
    return options.normalizeArguments ? options.normalizeArguments(tool, parsed.args) : parsed.args;
  };
  const runOne = async (
    call: ModelToolCall,
    decision?: unknown,
    awaiting?: string,
  ): Promise<BatchedToolCall> => {
    const tool = byName.get(call.name);
    const base = { callId: call.callId, toolName: tool?.name ?? call.name };
    if (!tool) {
      const result: ToolResult = gatewayFailure(
        'unknown_tool',
        `There is no tool named "${call.name}". Available tools: ${[...byName.keys()].join(', ')}.`,
      );
      return { ...base, result, status: 'done' };
    }
    const outcome = await invokeWithApproval(
      options.gateway,
      tool,
      argumentsOf(tool, call.arguments),
      {
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
      },
    );
    if (outcome.status === 'done' && isInputRequired(outcome.result))
      return {
        ...base,
        result: outcome.result,
        status: 'pending',
        inputRequest: outcome.result.input_request,
      };
    if (outcome.status === 'done') return { ...base, result: outcome.result, status: 'done' };
    const { pause } = outcome;
    return {
      ...base,
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
