import {
  AbstractChat,
  type ChatState,
  type ChatStatus,
  DefaultChatTransport,
  lastAssistantMessageIsCompleteWithApprovalResponses,
  type UIMessage,
} from 'ai';

/** The SDK's chat state in plain arrays: what `useChat` keeps in React state. */
class ArrayState implements ChatState<UIMessage> {
  status: ChatStatus = 'ready';
  error: Error | undefined = undefined;
  messages: UIMessage[] = [];
  pushMessage = (message: UIMessage) => {
    this.messages = [...this.messages, message];
  };
  popMessage = () => {
    this.messages = this.messages.slice(0, -1);
  };
  replaceMessage = (index: number, message: UIMessage) => {
    this.messages = this.messages.map((old, at) => (at === index ? message : old));
  };
  snapshot = <T>(thing: T): T => structuredClone(thing);
}

/**
 * The AI SDK's own chat client (the `Chat` behind `useChat`) outside React: it posts to the
 * server, reads its UI message stream, and — like `useChat` with
 * `sendAutomaticallyWhen: lastAssistantMessageIsCompleteWithApprovalResponses` — sends again once
 * every approval request of the last answer has a response.
 */
export class NodeChat extends AbstractChat<UIMessage> {
  constructor(api: string, headers: Record<string, string> = {}, id?: string) {
    super({
      ...(id ? { id } : {}),
      state: new ArrayState(),
      transport: new DefaultChatTransport({ api, headers }),
      sendAutomaticallyWhen: lastAssistantMessageIsCompleteWithApprovalResponses,
    });
  }

  /** The tool parts waiting for the user's decision: their approval id, tool and input. */
  pendingApprovals(): { approvalId: string; tool: string; input: unknown }[] {
    return this.messages.flatMap((message) =>
      message.parts.flatMap((part) => {
        const tool = part as {
          type: string;
          state?: string;
          approval?: { id: string };
          input?: unknown;
        };
        if (!tool.type.startsWith('tool-') || tool.state !== 'approval-requested' || !tool.approval)
          return [];
        return [{ approvalId: tool.approval.id, tool: tool.type.slice(5), input: tool.input }];
      }),
    );
  }

  /** The text of the last assistant message. */
  lastText(): string {
    const last = [...this.messages].reverse().find((message) => message.role === 'assistant');
    return (last?.parts ?? []).map((part) => (part.type === 'text' ? part.text : '')).join('');
  }

  /** Resolves once the chat is idle again (its streams, and any automatic resend, done). */
  async idle(): Promise<void> {
    for (let waited = 0; this.status === 'submitted' || this.status === 'streaming'; waited += 10) {
      if (waited > 30_000) throw new Error('the chat did not finish within 30 s');
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
  }
}
