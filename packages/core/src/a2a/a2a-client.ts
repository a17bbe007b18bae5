import { randomUUID } from 'node:crypto';
import type { Client } from '@a2a-js/sdk/client';
import { getInvocationContextOrEmpty } from '../context/invocation-context.js';
import { checkOptions } from '../errors/check-options.js';
import { KsadkError } from '../errors/ksadk-error.js';
import { BodyTooLargeError } from '../util/body-limit.js';
import { registerSecret } from '../util/redact.js';
import { modelSafeErrorMessage } from '../util/sanitize-message.js';
import { a2aFetch } from './a2a-fetch.js';
import { a2aFailure } from './failure.js';

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

/** Where a remote task stands. */
export type A2ATaskState =
  | 'submitted'
  | 'working'
  | 'completed'
  | 'failed'
  | 'canceled'
  | 'rejected'
  | 'input-required'
  | 'auth-required'
  | 'unknown';

/** The outcome of a request to a remote agent. `ok` is true only for a completed task or a direct reply. */
export interface A2AResult {
  ok: boolean;
  state: A2ATaskState;
  /** The agent's text: artifacts, else the status message, else its last message. */
  output: string;
  task_id: string | undefined;
  context_id: string | undefined;
  /** For `input-required` / `auth-required`: what the agent needs. */
  needs?: 'input' | 'auth';
  error_type?: string;
  error_message?: string;
}

/** One streamed event. */
export interface A2AStreamEvent {
  type: 'text' | 'status';
  /** New text (artifact or message) for `text`; the status message for `status`. */
  text: string;
  state: A2ATaskState;
  task_id: string | undefined;
  context_id: string | undefined;
}

/** Options of one request. */
export interface A2ASendOptions {
  contextId?: string;
  taskId?: string;
  /** Extra request metadata (KsADK adds `invocation_id`, `account_id`, `session_id`). */
  metadata?: Record<string, unknown>;
  signal?: AbortSignal;
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

type Sdk = typeof import('@a2a-js/sdk');
type SdkClient = typeof import('@a2a-js/sdk/client');
type Task = import('@a2a-js/sdk').Task;
type Message = import('@a2a-js/sdk').Message;
type Part = import('@a2a-js/sdk').Part;

const STATES: Record<number, A2ATaskState> = {
  1: 'submitted',
  2: 'working',
  3: 'completed',
  4: 'failed',
  5: 'canceled',
  6: 'input-required',
  7: 'rejected',
  8: 'auth-required',
};

async function loadSdk(): Promise<[Sdk, SdkClient]> {
  try {
    return await Promise.all([import('@a2a-js/sdk'), import('@a2a-js/sdk/client')]);
  } catch (error) {
    throw new KsadkError(
      'unsupported',
      'A2A needs the optional package @a2a-js/sdk (1.x): npm i @a2a-js/sdk',
      { cause: error },
    );
  }
}

const textOf = (parts: readonly Part[] | undefined): string =>
  (parts ?? [])
    .map((part) =>
      part.content?.$case === 'text'
        ? part.content.value
        : part.content?.$case === 'data'
          ? JSON.stringify(part.content.value)
          : '',
    )
    .filter(Boolean)
    .join('\n');

function resultOfTask(task: Task): A2AResult {
  const state = STATES[task.status?.state ?? 0] ?? 'unknown';
  const artifacts = task.artifacts
    .map((artifact) => textOf(artifact.parts))
    .filter(Boolean)
    .join('\n');
  const status = textOf(task.status?.message?.parts);
  const last = [...task.history].reverse().find((message) => message.role === 2);
  const output = artifacts || status || textOf(last?.parts);
  const base = {
    state,
    output,
    task_id: task.id || undefined,
    context_id: task.contextId || undefined,
  };
  if (state === 'completed') return { ok: true, ...base };
  if (state === 'input-required') return { ok: false, ...base, needs: 'input' };
  if (state === 'auth-required') return { ok: false, ...base, needs: 'auth' };
  if (state === 'failed' || state === 'canceled' || state === 'rejected') {
    return a2aFailure(
      `a2a_task_${state}`,
      output || `Remote A2A task ended in state: ${state}`,
      base,
    );
  }
  return a2aFailure('a2a_task_incomplete', `Remote A2A task is still ${state}`, base);
}

function resultOfMessage(message: Message): A2AResult {
  return {
    ok: true,
    state: 'completed',
    output: textOf(message.parts),
    task_id: message.taskId || undefined,
    context_id: message.contextId || undefined,
  };
}

function failure(error: unknown, limit: number): A2AResult {
  const tooLarge =
    error instanceof BodyTooLargeError ||
    (error as { cause?: unknown })?.cause instanceof BodyTooLargeError;
  return a2aFailure(
    tooLarge ? 'too_large' : 'a2a_error',
    tooLarge
      ? `The remote agent's reply is larger than ${limit} bytes and was not read.`
      : modelSafeErrorMessage(error),
    { state: 'unknown' as const, output: '', task_id: undefined, context_id: undefined },
  );
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
  let client: Promise<{ client: Client; sdk: Sdk }> | undefined;

  const connect = async (): Promise<{ client: Client; sdk: Sdk }> => {
    const [sdk, clientSdk] = await loadSdk();
    const {
      ClientFactory,
      ClientFactoryOptions,
      DefaultAgentCardResolver,
      JsonRpcTransportFactory,
      RestTransportFactory,
    } = clientSdk;
    const factory = new ClientFactory(
      ClientFactoryOptions.createFrom(ClientFactoryOptions.default, {
        transports: [
          new JsonRpcTransportFactory({ fetchImpl }),
          new RestTransportFactory({ fetchImpl }),
        ],
        cardResolver: new DefaultAgentCardResolver({ fetchImpl }),
      }),
    );
    return { client: await factory.createFromUrl(options.url.replace(/\/+$/, '')), sdk };
  };
  const ready = (): Promise<{ client: Client; sdk: Sdk }> => {
    if (!client) {
      const attempt = connect();
      client = attempt;
      attempt.catch(() => {
        if (client === attempt) client = undefined;
      });
    }
    return client;
  };

  const request = (sdk: Sdk, text: string, send: A2ASendOptions) => {
    const context = getInvocationContextOrEmpty();
    const metadata = {
      ...(send.metadata ?? {}),
      ...(context.invocationId ? { invocation_id: context.invocationId } : {}),
      ...(context.accountId ? { account_id: context.accountId } : {}),
      ...(context.sessionId ? { session_id: context.sessionId } : {}),
    };
    return {
      tenant: '',
      message: {
        messageId: randomUUID(),
        contextId: send.contextId ?? '',
        taskId: send.taskId ?? '',
        role: sdk.Role.ROLE_USER,
        parts: [
          {
            content: { $case: 'text' as const, value: text },
            metadata: undefined,
            filename: '',
            mediaType: 'text/plain',
          },
        ],
        metadata,
        extensions: [],
        referenceTaskIds: [],
      },
      configuration: {
        acceptedOutputModes: ['text/plain', 'application/json'],
        taskPushNotificationConfig: undefined,
        returnImmediately: false,
      },
      metadata,
    };
  };
  const tooBig = (text: string): A2AResult | undefined =>
    Buffer.byteLength(text, 'utf8') > maxRequestBytes
      ? a2aFailure('request_too_large', `The message is larger than ${maxRequestBytes} bytes.`, {
          state: 'unknown' as const,
          output: '',
          task_id: undefined,
          context_id: undefined,
        })
      : undefined;
  const signalOf = (send: A2ASendOptions): AbortSignal =>
    send.signal
      ? AbortSignal.any([send.signal, AbortSignal.timeout(timeoutMs)])
      : AbortSignal.timeout(timeoutMs);

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
      const refused = tooBig(text);
      if (refused) return refused;
      try {
        const { client: connected, sdk } = await ready();
        const reply = await connected.sendMessage(request(sdk, text, send), {
          signal: signalOf(send),
        });
        return 'messageId' in reply ? resultOfMessage(reply) : resultOfTask(reply);
      } catch (error) {
        return failure(error, maxResponseBytes);
      }
    },
    async *stream(text, send = {}) {
      const refused = tooBig(text);
      if (refused) return refused;
      let task: Task | undefined;
      let direct: Message | undefined;
      const ids = {
        task_id: undefined as string | undefined,
        context_id: undefined as string | undefined,
      };
      try {
        const { client: connected, sdk } = await ready();
        for await (const event of connected.sendMessageStream(request(sdk, text, send), {
          signal: signalOf(send),
        })) {
          const payload = event.payload;
          if (!payload) continue;
          if (payload.$case === 'message') {
            direct = payload.value;
            yield {
              type: 'text',
              text: textOf(direct.parts),
              state: 'completed',
              task_id: direct.taskId || undefined,
              context_id: direct.contextId || undefined,
            };
          } else if (payload.$case === 'task') {
            task = payload.value;
            ids.task_id = task.id;
            ids.context_id = task.contextId;
          } else if (payload.$case === 'statusUpdate') {
            const update = payload.value;
            ids.task_id = update.taskId;
            ids.context_id = update.contextId;
            const state = STATES[update.status?.state ?? 0] ?? 'unknown';
            if (task) task = { ...task, status: update.status };
            yield { type: 'status', text: textOf(update.status?.message?.parts), state, ...ids };
          } else if (payload.$case === 'artifactUpdate') {
            const artifact = payload.value.artifact;
            if (task && artifact) task = { ...task, artifacts: [...task.artifacts, artifact] };
            const chunk = textOf(artifact?.parts);
            if (chunk)
              yield {
                type: 'text',
                text: chunk,
                state: 'working',
                task_id: payload.value.taskId,
                context_id: payload.value.contextId,
              };
          }
        }
      } catch (error) {
        return { ...failure(error, maxResponseBytes), ...ids };
      }
      if (direct) return resultOfMessage(direct);
      if (task) return resultOfTask(task);
      return a2aFailure('a2a_error', 'A2A response did not include a task result', {
        state: 'unknown',
        output: '',
        ...ids,
      });
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
        return failure(error, maxResponseBytes);
      }
    },
  };
}
