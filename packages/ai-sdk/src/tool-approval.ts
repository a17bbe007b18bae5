import type { ModelMessage, Tool, ToolSet } from 'ai';
import { registeredOf } from './settle-denials.js';
import { gatewayAsks } from './to-ai-sdk-tools.js';

/**
 * What {@link gatewayToolApproval} answers for one call — the two of AI SDK 7's
 * `ToolApprovalStatus` values the gateway gives: ask the human (with the gateway's reason, which
 * the SDK puts on its `tool-approval-request`), or nothing to ask. Never `'approved'` nor
 * `'denied'`: the gateway approves through its own grant, and refuses in the tool's `execute`.
 */
export type GatewayToolApprovalStatus =
  | 'not-applicable'
  | { readonly type: 'user-approval'; readonly reason?: string };

/** One tool's entry: AI SDK 7's per-tool approval function (`SingleToolApprovalFunction`). */
export type GatewayToolApprovalFunction = (
  input: unknown,
  options: { readonly toolCallId: string; readonly messages: ModelMessage[] },
) => Promise<GatewayToolApprovalStatus>;

/**
 * A per-tool AI SDK 7 `ToolApprovalConfiguration`: an entry for each tool of the set made by
 * `toAiSdkTools`, by name. Typed structurally, so it compiles on AI SDK 6 too (which has no
 * call-level `toolApproval`).
 */
export type GatewayToolApproval = Readonly<Record<string, GatewayToolApprovalFunction>>;

/**
 * The gateway's decision as AI SDK 7's call-level `toolApproval` (for `generateText`, `streamText`,
 * `new ToolLoopAgent`), for a host that configures approvals per call rather than through the
 * tools' own (deprecated in 7) `needsApproval`. Each entry asks the same as the tool's
 * `needsApproval`: a call the gateway gates becomes the SDK's `tool-approval-request` (its request
 * made in the gateway, bound to the call id and the exact arguments, with the gateway's reason);
 * any other call is `'not-applicable'`.
 *
 * The gateway stays the only authority: whatever any `toolApproval` answers — this one, or a host's
 * `'approved'` over it — a gated call runs only with the gateway's grant for the request it made
 * for exactly that call, which the tool's `execute` checks. A client's approval for other
 * arguments, another call id, or one already used runs nothing.
 *
 * Tools of the set not made by `toAiSdkTools` get no entry: the SDK asks their own `needsApproval`.
 * Pass the same tool set as `tools`. On AI SDK 6 the SDK ignores `toolApproval`, and the tools'
 * `needsApproval` asks the same.
 *
 * @example
 * ```ts
 * const tools = toAiSdkTools([readNote, writeNote], { gateway });
 * const result = streamText({ model, tools, messages, toolApproval: gatewayToolApproval(tools) });
 * // Spread it to add your own tools' entries: { ...gatewayToolApproval(tools), search: 'not-applicable' }
 * ```
 */
export function gatewayToolApproval(tools: ToolSet): GatewayToolApproval {
  const approval: Record<string, GatewayToolApprovalFunction> = {};
  for (const [name, made] of Object.entries(tools)) {
    const found = registeredOf(made as Tool);
    if (!found) continue;
    const entry: GatewayToolApprovalFunction = async (input, options) => {
      const asks = await gatewayAsks(found.target, found.gateway, input, options);
      if (asks === false) return 'not-applicable';
      if (asks === true) return { type: 'user-approval' };
      const { summary, why } = asks.approval_request;
      const reason = summary ?? why;
      return reason === undefined ? { type: 'user-approval' } : { type: 'user-approval', reason };
    };
    // Defined, not assigned: a tool named `__proto__` is a key like any other.
    Object.defineProperty(approval, name, {
      value: entry,
      enumerable: true,
      writable: true,
      configurable: true,
    });
  }
  return approval;
}
