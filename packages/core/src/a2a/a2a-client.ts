import { checkOptions } from '../errors/check-options.js';
import { registerSecret } from '../util/redact.js';
import { lazyConnection } from './a2a-connection.js';
import { a2aFetch } from './a2a-fetch.js';
import {
  type A2ASendOptions,
  messageRequest,
  requestSignal,
  requestTooLarge,
} from './a2a-request.js';
import { type A2AResult, errorResult, resultOfMessage, resultOfTask } from './a2a-result.js';
import {
  type A2AStreamEvent,
  emptyStreamState,
  foldStreamEvent,
  streamResult,
} from './a2a-stream.js';

export type { A2ASendOptions } from './a2a-request.js';
export type { A2AResult, A2ATaskState } from './a2a-result.js';
export type { A2AStreamEvent } from './a2a-stream.js';

/** Options for {@link createA2AClient}. */
export interface A2AClientOptions {
  /** The agent's base URL (its card is at `/.well-known/agent-card.json`). */
  url: string;
  /** Headers for every request (an `Authorization` header, say). Treated as secrets. */
  headers?: Record<string, string>;
  /** Per-request timeout. @default 120000 */
  timeoutMs?: number;
  /** Largest message sent, in UTF-8 bytes. @default 1 MiB */
  maxRequestBytes?: number;
  /** Largest response body (or whole stream) read, in bytes. @default 4 MiB */
  maxResponseBytes?: number;
  /** The `fetch` to use. @default globalThis.fetch */
  fetch?: typeof fetch;
}

/** What the card says, trimmed to what a caller needs. */
export interface A2AAgentSummary {
  name: string;
  description: string;
  skills: { id: string; name: string; description: string }[];
  streaming: boolean;
}

/** A client for one remote A2A agent. */
export interface A2AClient {
  /** The agent card (fetched once). */
  getCard(): Promise<A2AAgentSummary>;
  /** Sends a message and waits for the task to finish or to need something. */
  send(text: string, options?: A2ASendOptions): Promise<A2AResult>;
  /** Sends a message and yields text and status events; returns the final result. */
  stream(
    text: string,
    options?: A2ASendOptions,
  ): AsyncGenerator<A2AStreamEvent, A2AResult, undefined>;
  /** Cancels a running task. */
  cancel(taskId: string): Promise<A2AResult>;
}

/**
 * Creates a client for a remote agent over the official `@a2a-js/sdk` 1.x (`ClientFactory`,
 * JSON-RPC or HTTP+JSON per its card). Requests carry the invocation context (`invocation_id`,
 * `account_id`, `session_id`) as metadata; what is sent and received is size-limited; every
 * terminal and interrupted task state comes back as a structured result, not an exception.
 *
 * @throws {KsadkError} `unsupported` when `@a2a-js/sdk` is not installed (on first use).
 *
 * @example
 * ```ts
 * const agent = createA2AClient({ url: 'https://agents.example.com/travel' });
 * const result = await agent.send('Find a flight to Oslo on Friday');
 * ```
 */
export function createA2AClient(options: A2AClientOptions): A2AClient {
  checkOptions(
    options,
    {
      url: true,
      headers: true,
      timeoutMs: true,
      maxRequestBytes: true,
      maxResponseBytes: true,
      fetch: true,
    },
    'createA2AClient()',
  );
  const timeoutMs = options.timeoutMs ?? 120_000;
  const maxRequestBytes = options.maxRequestBytes ?? 1024 * 1024;
  const maxResponseBytes = options.maxResponseBytes ?? 4 * 1024 * 1024;
  // Header values (an Authorization token, say) never reach the model, whatever the agent echoes.
  for (const value of Object.values(options.headers ?? {})) registerSecret(value);
  const fetchImpl = a2aFetch(
    options.fetch ?? globalThis.fetch,
    maxResponseBytes,
    options.headers ?? {},
  );
  const ready = lazyConnection(options.url, fetchImpl);

  return {
    async getCard() {
      const { client: connected } = await ready();
      const card = await connected.getAgentCard();
      return {
        name: card.name,
        description: card.description,
        skills: card.skills.map((skill) => ({
          id: skill.id,
          name: skill.name,
          description: skill.description,
        })),
        streaming: card.capabilities?.streaming === true,
      };
    },
    async send(text, send = {}) {
      const refused = requestTooLarge(text, maxRequestBytes);
      if (refused) return refused;
      try {
        const { client: connected, sdk } = await ready();
        const reply = await connected.sendMessage(messageRequest(sdk, text, send), {
          signal: requestSignal(send, timeoutMs),
        });
        return 'messageId' in reply ? resultOfMessage(reply) : resultOfTask(reply);
      } catch (error) {
        return errorResult(error, maxResponseBytes);
      }
    },
    async *stream(text, send = {}) {
      const refused = requestTooLarge(text, maxRequestBytes);
      if (refused) return refused;
      const stream = emptyStreamState();
      try {
        const { client: connected, sdk } = await ready();
        for await (const event of connected.sendMessageStream(messageRequest(sdk, text, send), {
          signal: requestSignal(send, timeoutMs),
        })) {
          const passed = foldStreamEvent(stream, event);
          if (passed) yield passed;
        }
      } catch (error) {
        return { ...errorResult(error, maxResponseBytes), ...stream.ids };
      }
      return streamResult(stream);
    },
    async cancel(taskId) {
      try {
        const { client: connected } = await ready();
        return resultOfTask(
          await connected.cancelTask({ tenant: '', id: taskId, metadata: undefined } as never, {
            signal: AbortSignal.timeout(timeoutMs),
          }),
        );
      } catch (error) {
        return errorResult(error, maxResponseBytes);
      }
    },
  };
}
