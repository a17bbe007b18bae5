import {
  KsadkError,
  type Tool as KsadkTool,
  type ToolCallOptions,
  type ToolGateway,
  type ToolProgressEvent,
} from '@ksadk/core';
import { checkOptions, failedResult, invokeDecidedCall } from '@ksadk/core/adapter';
import { openAIToolSchema } from '@ksadk/core/schema';
import { type FunctionTool, type RunContext, tool } from '@openai/agents';
import { modelOutputOf, type OpenAIAgentsToolOutput } from './model-output.js';
import { argumentsFor, type Registered, register, sdkDecisionOf } from './registered-tools.js';

/** Options for {@link toOpenAIAgentsTools}. */
export interface OpenAIAgentsToolsOptions {
  /** The gateway every call goes through. */
  readonly gateway: ToolGateway;
  /**
   * Progress of long calls (an MCP server's notifications, a tool's own reports), with the SDK's
   * tool call id: the Agents SDK has no progress channel for function tools, so this is where a
   * host forwards it (to its own UI stream, say). Never shown to the model.
   */
  readonly onProgress?: (event: ToolProgressEvent, toolCallId: string) => void;
}

/** A function tool made by {@link toOpenAIAgentsTools}: for any agent context. */
// biome-ignore lint/suspicious/noExplicitAny: the SDK's own `Tool<Context>` is `FunctionTool<Context, any, any>`.
export type OpenAIAgentsTool = FunctionTool<any, any, OpenAIAgentsToolOutput>;

/** What the SDK tells a tool's `execute` about the call (its `ToolCallDetails`). */
type CallDetails = Parameters<OpenAIAgentsTool['invoke']>[2];

/** The options of a call, filled in only with what the SDK gave (no spread per call). */
type CallOptions = {
  callId?: string;
  signal?: AbortSignal;
  onProgress?: ToolCallOptions['onProgress'];
};

/** `needsApproval`'s answer for a call of a tool the gateway does not stop in this mode: one promise for all. */
const NOT_ASKED: Promise<boolean> = Promise.resolve(false);

/** One KsADK tool as an SDK function tool: every call through the gateway, approvals bound to it. */
function agentsTool(target: KsadkTool, options: OpenAIAgentsToolsOptions): OpenAIAgentsTool {
  const { gateway, onProgress } = options;
  const { schema, strict } = openAIToolSchema(target);
  const entry: Registered = { target, gateway, strict };
  // A tool the gateway never stops, by its own static check (a policy decided per call counts as
  // one that may stop), has no request to make or honour: its calls go straight to `invoke`.
  // `needsApproval` stays a function even for a tool no mode stops: for a call whose arguments it
  // cannot read, the SDK then pauses (a static `false` would hand the model a parse error).
  const mayAsk = () => gateway.requiresApproval(target);
  const made: OpenAIAgentsTool = tool({
    name: target.name,
    description: target.description,
    parameters: schema as never,
    strict,
    // Asked before the SDK runs a call it has no decision for: the gateway's decision for this very
    // call. A new call's request is made here, bound to the SDK's call id and the exact arguments.
    // Once the SDK holds a decision on the call (newer SDKs ask again on resume), a request made now
    // is one no human saw, so it only looks: an approval never reaches arguments edited after it.
    needsApproval: (context: RunContext, input: unknown, callId?: string) =>
      mayAsk() ? askGateway(context, input, callId) : NOT_ASKED,
    execute: async (input: unknown, context?: RunContext, details?: CallDetails) => {
      const callId = details?.toolCall?.callId;
      try {
        const args = argumentsFor(entry, input);
        const options: CallOptions = {};
        if (callId) options.callId = callId;
        if (details?.signal) options.signal = details.signal;
        if (onProgress && callId)
          options.onProgress = (event: ToolProgressEvent) => onProgress(event, callId);
        // The SDK's approval (`state.approve(item)`; with `alwaysApprove`, a standing grant) counts
        // only for the request the gateway made for this call id and these exact arguments.
        if (!(callId && context && mayAsk()))
          return modelOutputOf(await gateway.invoke(target, args, options));
        const asked = await gateway.pendingApproval(target, args, { callId, create: false });
        const decided = asked ? sdkDecisionOf(context, made.name, callId) : undefined;
        const decision = decided?.approved
          ? decided.always
            ? { type: 'approve', always: 'session' }
            : 'approve'
          : undefined;
        return modelOutputOf(
          await invokeDecidedCall(gateway, target, args, { ...options, decision }),
        );
      } catch (error) {
        return modelOutputOf(failedResult(error));
      }
    },
  });
  async function askGateway(
    context: RunContext,
    input: unknown,
    callId: string | undefined,
  ): Promise<boolean> {
    try {
      const decided = callId ? sdkDecisionOf(context, made.name, callId) : undefined;
      const asked = await gateway.pendingApproval(target, argumentsFor(entry, input), {
        ...(callId ? { callId } : {}),
        ...(decided ? { create: false } : {}),
      });
      return asked !== undefined;
    } catch {
      // `execute` asks the gateway again, and the gateway never runs an unapproved call.
      return false;
    }
  }
  return register(made, entry);
}

/**
 * KsADK tools as OpenAI Agents SDK function tools (`new Agent({ tools })`). Every call goes through
 * the gateway. Each tool's `needsApproval` is the gateway's decision for the call, so a call that
 * needs a human pauses the run as the SDK's own interruption (`result.interruptions`;
 * {@link approvalRequestOf} gives the full request). `state.approve(item)` runs it — honoured only
 * through the gateway's request for exactly that call, once, also when a saved `RunState` is
 * resumed in another process or twice; `{ alwaysApprove: true }` becomes a standing grant for the
 * session. After `state.reject(item)`, call {@link settleRejections}. Run inside
 * `runWithInvocationContext({ accountId, userId, sessionId }, …)`.
 *
 * @throws {KsadkError} `invalid_config` for two tools with the same name (as the SDK names them).
 *
 * @example
 * ```ts
 * const agent = new Agent({ name: 'notes', model, tools: toOpenAIAgentsTools([readNote, writeNote], { gateway }) });
 * const result = await run(agent, 'Save a note.');
 * ```
 */
export function toOpenAIAgentsTools(
  tools: readonly KsadkTool[],
  options: OpenAIAgentsToolsOptions,
): OpenAIAgentsTool[] {
  checkOptions(options, { gateway: true, onProgress: true }, 'toOpenAIAgentsTools()');
  const names = new Set<string>();
  return tools.map((target) => {
    const made = agentsTool(target, options);
    // The SDK renames what is not [A-Za-z0-9_] (`read-file` → `read_file`): clashes count after it.
    if (names.has(made.name)) {
      const as = made.name === target.name ? '' : ` (${target.name}, as the SDK names it)`;
      throw new KsadkError('invalid_config', `Two tools are named ${made.name}${as}.`);
    }
    names.add(made.name);
    return made;
  });
}
