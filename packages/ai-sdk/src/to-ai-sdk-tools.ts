import {
  type ApprovalRequiredResult,
  KsadkError,
  type Tool as KsadkTool,
  type ToolGateway,
  type ToolProgressEvent,
  type ToolResult,
} from '@ksadk/core';
import { checkOptions, invokeDecidedCall } from '@ksadk/core/adapter';
import { aiSdkToolSchema } from '@ksadk/core/schema';
import { jsonSchema, type ModelMessage, type Tool, type ToolSet, tool } from 'ai';
import { clientApprovalFor } from './approval-responses.js';
import { modelOutputOf } from './model-output.js';
import { register, settleDenials, toolsOf } from './settle-denials.js';

/** Options for {@link toAiSdkTools}. */
export interface AiSdkToolsOptions {
  /** The gateway every call goes through. */
  readonly gateway: ToolGateway;
  /**
   * Progress of long calls (an MCP server's notifications, a tool's own reports), with the SDK's
   * tool call id: the AI SDK has no progress channel of its own, so this is where a host forwards
   * it (to a `createUIMessageStream` writer, say). Never shown to the model.
   */
  readonly onProgress?: (event: ToolProgressEvent, toolCallId: string) => void;
}

/**
 * Whether the SDK is to ask before it runs a call — the gateway's decision for this very call (its
 * policy, standing grants, the approval mode): the `approval_required` envelope of the request made
 * for a call that asks (bound to the SDK's tool call id and the exact arguments), `true` for a call
 * the client answered already (it goes on to `execute`, which alone decides what the answer is
 * worth), `false` for a call that does not ask. The tool-level `needsApproval` and AI SDK 7's
 * call-level `toolApproval` (`gatewayToolApproval`) both answer with it.
 */
export async function gatewayAsks(
  target: KsadkTool,
  gateway: ToolGateway,
  input: unknown,
  { toolCallId, messages }: { readonly toolCallId: string; readonly messages: ModelMessage[] },
): Promise<ApprovalRequiredResult | boolean> {
  // A tool the gateway never stops, by its static check in this context (a policy decided per call
  // counts as one that may stop), has no request to make: on to `execute`, which settles denials.
  if (!gateway.requiresApproval(target)) return false;
  // Denials are settled for every tool made for this gateway, so a merged ToolSet loses none.
  await settleDenials(toolsOf(gateway), messages);
  if (clientApprovalFor(messages, toolCallId)) return true;
  return (await gateway.pendingApproval(target, input, { callId: toolCallId })) ?? false;
}

/** One KsADK tool as an AI SDK tool: every call through the gateway, approvals bound to it. */
function aiSdkTool(target: KsadkTool, options: AiSdkToolsOptions): Tool {
  const { gateway, onProgress } = options;
  const ownTools = toolsOf(gateway);
  const made = tool<unknown, ToolResult>({
    description: target.description,
    inputSchema: jsonSchema(aiSdkToolSchema(target)),
    // Asked before the SDK runs a call (on AI SDK 6 as on 7, unless a call-level `toolApproval`
    // answers for the tool): a new call's request is made here.
    needsApproval: async (input, options) =>
      (await gatewayAsks(target, gateway, input, options)) !== false,
    execute: async (input, { toolCallId, messages, abortSignal }) => {
      await settleDenials(ownTools, messages);
      const call = {
        callId: toolCallId,
        ...(abortSignal ? { signal: abortSignal } : {}),
        ...(onProgress
          ? { onProgress: (event: ToolProgressEvent) => onProgress(event, toolCallId) }
          : {}),
      };
      // The client's approval counts only for the request the gateway made for this call id and
      // these exact arguments, in this account and session; anything else is invoked as is (and
      // asks again, or answers from its record).
      const approved = clientApprovalFor(messages, toolCallId)?.approved === true;
      return invokeDecidedCall(gateway, target, input, {
        ...call,
        decision: approved ? 'approve' : undefined,
      });
    },
    // The result is plain JSON already (the gateway made it so).
    toModelOutput: ({ output }) => modelOutputOf(output) as never,
  }) as Tool;
  return register(made, target, gateway);
}

/**
 * KsADK tools as an AI SDK `ToolSet`, for `generateText`, `streamText` and `ToolLoopAgent`. Every
 * call goes through the gateway. A call that needs a human's approval goes through the SDK's own
 * approval flow (a `tool-approval-request` part; the client's `tool-approval-response` in the
 * next request) — honoured only through the gateway's grant for the request it made for exactly
 * that call: a response for other arguments, another call id, or one already used runs nothing.
 * Run it inside `runWithInvocationContext({ accountId, userId, sessionId }, …)` so requests belong
 * to the right person and session across stateless requests.
 *
 * @throws {KsadkError} `invalid_config` for two tools with the same name.
 *
 * @example
 * ```ts
 * const tools = toAiSdkTools([readNote, writeNote], { gateway });
 * const result = streamText({ model, tools, messages, stopWhen: stepCountIs(5) });
 * ```
 */
export function toAiSdkTools(tools: readonly KsadkTool[], options: AiSdkToolsOptions): ToolSet {
  checkOptions(options, { gateway: true, onProgress: true }, 'toAiSdkTools()');
  const names = new Set<string>();
  for (const target of tools) {
    if (names.has(target.name))
      throw new KsadkError('invalid_config', `Two tools are named ${target.name}.`);
    names.add(target.name);
  }
  const set: ToolSet = {};
  for (const target of tools) {
    // Defined, not assigned: a tool named `__proto__` is a key like any other.
    Object.defineProperty(set, target.name, {
      value: aiSdkTool(target, options),
      enumerable: true,
      writable: true,
      configurable: true,
    });
  }
  return set;
}
