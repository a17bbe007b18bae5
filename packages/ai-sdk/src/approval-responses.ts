import type { ModelMessage } from 'ai';

/** What the client answered to the SDK's approval request for one tool call. */
export interface ClientApprovalResponse {
  readonly approved: boolean;
}

/** The parts of a message, when its content is a list of them. */
function partsOf(message: ModelMessage): readonly Record<string, unknown>[] {
  const { content } = message as { content: unknown };
  return Array.isArray(content)
    ? content.filter(
        (part): part is Record<string, unknown> => typeof part === 'object' && part !== null,
      )
    : [];
}

/**
 * The client's answer to the approval request of `toolCallId` in `messages` — the SDK's
 * `tool-approval-request` part (in an assistant message) and the `tool-approval-response` to it (in
 * the last message) — or `undefined` when there is none. Only read here: the answer counts only
 * through the gateway, for a request it made for exactly this call. A request the SDK answered
 * itself (`isAutomatic`: a call-level `toolApproval` said `'approved'`) is nobody's answer: with it,
 * a later call of the same id in the same run would otherwise approve the gateway's request.
 */
export function clientApprovalFor(
  messages: readonly ModelMessage[],
  toolCallId: string,
): ClientApprovalResponse | undefined {
  const last = messages.at(-1);
  if (last?.role !== 'tool') return undefined;
  const approvalIds = new Set<string>();
  for (const message of messages) {
    if (message.role !== 'assistant') continue;
    for (const part of partsOf(message))
      if (
        part['type'] === 'tool-approval-request' &&
        part['toolCallId'] === toolCallId &&
        typeof part['approvalId'] === 'string' &&
        part['isAutomatic'] !== true
      )
        approvalIds.add(part['approvalId']);
  }
  for (const part of partsOf(last)) {
    if (part['type'] !== 'tool-approval-response') continue;
    if (typeof part['approvalId'] !== 'string' || !approvalIds.has(part['approvalId'])) continue;
    return { approved: part['approved'] === true };
  }
  return undefined;
}

/**
 * The tool calls the client denied in `messages` (in any tool message: the SDK may have added its
 * own results after the client's answers): their call id, tool and input.
 */
export function deniedCalls(
  messages: readonly ModelMessage[],
): { toolCallId: string; toolName: string; input: unknown; reason: string | undefined }[] {
  const calls = new Map<string, { toolName: string; input: unknown }>();
  const callOfApproval = new Map<string, string>();
  for (const message of messages) {
    if (message.role !== 'assistant') continue;
    for (const part of partsOf(message)) {
      if (part['type'] === 'tool-call' && typeof part['toolCallId'] === 'string')
        calls.set(part['toolCallId'], {
          toolName: String(part['toolName']),
          input: part['input'],
        });
      if (
        part['type'] === 'tool-approval-request' &&
        typeof part['approvalId'] === 'string' &&
        typeof part['toolCallId'] === 'string'
      )
        callOfApproval.set(part['approvalId'], part['toolCallId']);
    }
  }
  const denied = [];
  const answers = messages.filter((message) => message.role === 'tool').flatMap(partsOf);
  for (const part of answers) {
    if (part['type'] !== 'tool-approval-response' || part['approved'] === true) continue;
    const toolCallId = callOfApproval.get(String(part['approvalId']));
    const call = toolCallId ? calls.get(toolCallId) : undefined;
    if (!toolCallId || !call) continue;
    const reason = typeof part['reason'] === 'string' ? part['reason'].slice(0, 500) : undefined;
    denied.push({ toolCallId, ...call, reason });
  }
  return denied;
}
