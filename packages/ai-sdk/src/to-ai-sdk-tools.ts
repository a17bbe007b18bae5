import {
  KsadkError,
  type Tool as KsadkTool,
  type ToolGateway,
  type ToolProgressEvent,
  type ToolResult,
} from '@ksadk/core';
import { checkOptions } from '@ksadk/core/adapter';
import { aiSdkToolSchema } from '@ksadk/core/schema';
import { jsonSchema, type ModelMessage, type Tool, type ToolSet, tool } from 'ai';
import { clientApprovalFor, deniedCalls } from './approval-responses.js';
import { modelOutputOf } from './model-output.js';

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

/** The tools of one set, by name, for settling the requests a client denied. */
type ByName = ReadonlyMap<string, KsadkTool>;

/** Requests settled already, per messages array (the SDK hands every call of a step the same one). */
const settled = new WeakSet<readonly ModelMessage[]>();

/**
 * Closes the requests the client's last message denied: the SDK answers such a call
 * `execution-denied` without asking us, so its request would otherwise wait in the inbox until
 * it expires. Only a request made for exactly that call (id and arguments) is touched.
 */
async function settleDenials(
  gateway: ToolGateway,
  byName: ByName,
  messages: readonly ModelMessage[],
): Promise<void> {
  if (settled.has(messages)) return;
  settled.add(messages);
  for (const denied of deniedCalls(messages)) {
    const target = byName.get(denied.toolName);
    if (!target) continue;
    const pending = await gateway.pendingApproval(target, denied.input, {
      callId: denied.toolCallId,
      create: false,
    });
    if (!pending) continue;
    await gateway
      .reject(pending.approval_request.id, { reason: denied.reason ?? 'The user denied it.' })
      .catch(() => undefined);
  }
}

/** One KsADK tool as an AI SDK tool: every call through the gateway, approvals bound to it. */
function aiSdkTool(target: KsadkTool, byName: ByName, options: AiSdkToolsOptions): Tool {
  const { gateway, onProgress } = options;
  return tool<unknown, ToolResult>({
    description: target.description,
    inputSchema: jsonSchema(aiSdkToolSchema(target)),
    // Asked before the SDK runs a call: the gateway's decision for this very call (its policy,
    // standing grants, the approval mode). A new call's request is made here, bound to the SDK's
    // tool call id and the exact arguments. A call the client answered goes on to `execute`
    // (on AI SDK 6 as on 7), which alone decides what the answer is worth.
    needsApproval: async (input, { toolCallId, messages }) => {
      await settleDenials(gateway, byName, messages);
      if (clientApprovalFor(messages, toolCallId)) return true;
      return (await gateway.pendingApproval(target, input, { callId: toolCallId })) !== undefined;
    },
    execute: async (input, { toolCallId, messages, abortSignal }) => {
      await settleDenials(gateway, byName, messages);
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
      const response = clientApprovalFor(messages, toolCallId);
      if (response?.approved) {
        const pending = await gateway.pendingApproval(target, input, {
          callId: toolCallId,
          create: false,
        });
        const grant = pending
          ? await gateway.approve(pending.approval_request.id).catch(() => undefined)
          : undefined;
        if (grant) return gateway.invoke(target, input, { ...call, approval: grant });
      }
      return gateway.invoke(target, input, call);
    },
    // The result is plain JSON already (the gateway made it so).
    toModelOutput: ({ output }) => modelOutputOf(output) as never,
  }) as Tool;
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
  const byName = new Map<string, KsadkTool>();
  for (const target of tools) {
    if (byName.has(target.name))
      throw new KsadkError('invalid_config', `Two tools are named ${target.name}.`);
    byName.set(target.name, target);
  }
  const set: ToolSet = {};
  for (const target of tools) {
    // Defined, not assigned: a tool named `__proto__` is a key like any other.
    Object.defineProperty(set, target.name, {
      value: aiSdkTool(target, byName, options),
      enumerable: true,
      writable: true,
      configurable: true,
    });
  }
  return set;
}
