// Types of the page's script (chat.js), for the tests that run it in Node.

/** A message of the page's conversation: the AI SDK's UI message shape. */
export interface PageMessage {
  id: string;
  role: 'user' | 'assistant';
  parts: PagePart[];
}

/** A text part, or a tool part (`tool-<name>`) with its state, input, approval and output. */
export interface PagePart {
  type: string;
  id?: string;
  text?: string;
  toolCallId?: string;
  state?: string;
  input?: unknown;
  output?: unknown;
  approval?: { id: string; approved?: boolean; reason?: string };
}

/** The page's chat: where it posts, with which headers, and the conversation so far. */
export interface PageChat {
  api: string;
  headers: Record<string, string>;
  id: string;
  messages: PageMessage[];
}

export function applyChunk<T extends { parts: PagePart[] }>(message: T, chunk: { type: string }): T;
export function readStream(response: Response, onChunk: (chunk: never) => void): Promise<void>;
export function send(chat: PageChat, render?: () => void): Promise<void>;
export function decide(
  chat: PageChat,
  approvalId: string,
  approved: boolean,
  render?: () => void,
): Promise<void>;
