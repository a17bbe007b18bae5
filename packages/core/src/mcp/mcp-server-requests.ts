import { createHash } from 'node:crypto';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { OptionKeys } from '../errors/check-options.js';
import type { HumanInputAnswer, HumanInputRequest } from '../tool/human-input.js';
import type { ToolExecutionContext } from '../tool/tool.js';

/** A model request an MCP server asks the client to run (`sampling/createMessage`). */
export interface McpSamplingRequest {
  readonly server: string;
  readonly messages: readonly { role: 'user' | 'assistant'; content: unknown }[];
  readonly systemPrompt?: string;
  /** Already capped at the toolset's `samplingMaxTokens`. */
  readonly maxTokens: number;
  readonly temperature?: number;
  readonly stopSequences?: readonly string[];
}

/** What a sampler answers. */
export interface McpSamplingResult {
  readonly role: 'assistant';
  readonly content: { type: 'text'; text: string };
  readonly model: string;
  readonly stopReason?: string;
}

/** A server log message (`notifications/message`), for the host's logger — never the model. */
export interface McpLogEvent {
  readonly server: string;
  readonly level: string;
  readonly logger?: string;
  readonly data: unknown;
}

/** What a server may ask of this client while a call runs, as the host enables it. */
export interface McpServerRequestOptions {
  /**
   * Declare the `elicitation` capability: a server's questions (`elicitation/create`, form mode) go
   * to the human through the adapter's pause, and the answer back to the server. Off: none asked.
   * @default false
   */
  elicitation?: boolean;
  /**
   * Declare the `sampling` capability and answer `sampling/createMessage` with this function (for
   * example backed by the host's own model client). Off when absent.
   */
  sampler?: (request: McpSamplingRequest) => Promise<McpSamplingResult>;
  /** Token cap of one sampling request (the server's `maxTokens` is lowered to it). @default 1024 */
  samplingMaxTokens?: number;
  /**
   * Servers whose sampling requests run without asking the human (by configured name). Every
   * other server's request is a question the human approves first.
   */
  trustedSamplingServers?: readonly string[];
  /** Declare the `roots` capability and answer `roots/list` with these (e.g. the workspace root). */
  roots?: () => Promise<readonly { uri: string; name?: string }[]>;
  /** Server log messages. @default dropped */
  onLog?: (event: McpLogEvent) => void;
  /** Progress notifications also restart a call's timeout (MCP's `resetTimeoutOnProgress`). @default false */
  resetTimeoutOnProgress?: boolean;
}

/** The option names of {@link McpServerRequestOptions}. */
export const SERVER_REQUEST_OPTIONS = {
  elicitation: true,
  sampler: true,
  samplingMaxTokens: true,
  trustedSamplingServers: true,
  roots: true,
  onLog: true,
  resetTimeoutOnProgress: true,
} as const satisfies OptionKeys<McpServerRequestOptions>;

/** Just the server-request options of a larger options object. */
export function serverRequestOptions(options: McpServerRequestOptions): McpServerRequestOptions {
  const picked: Record<string, unknown> = {};
  for (const key of Object.keys(SERVER_REQUEST_OPTIONS) as (keyof McpServerRequestOptions)[])
    if (options[key] !== undefined) picked[key] = options[key];
  return picked as McpServerRequestOptions;
}

/** A question a server asked during one call, waiting for the call's runner to answer it. */
interface Question {
  readonly request: HumanInputRequest;
  respond(answer: HumanInputAnswer): void;
}

/** One `tools/call` in flight, which server requests are attributed to. */
export interface InflightCall {
  readonly context: ToolExecutionContext;
  /** The next question, when one comes. */
  nextQuestion(): Promise<Question>;
}

const DEFAULT_SAMPLING_MAX_TOKENS = 1024;
const MAX_MESSAGE_CHARS = 2000;

const keyOf = (...parts: unknown[]): string =>
  createHash('sha256').update(JSON.stringify(parts)).digest('hex').slice(0, 24);

/** The SDK's schemas and error types (loaded with the first client). */
type SdkTypes = typeof import('@modelcontextprotocol/sdk/types.js');
/** Asks the human, through the one call in flight. */
type Ask = (
  request: Omit<HumanInputRequest, 'tool_call_id' | 'tool_name'>,
) => Promise<HumanInputAnswer>;

/** Form questions (elicitation) become the call's `ksadk_input` pauses; a URL to open is declined. */
function installElicitation(client: Client, types: SdkTypes, server: string, ask: Ask): void {
  client.setRequestHandler(types.ElicitRequestSchema, async (request) => {
    const params = request.params as {
      mode?: string;
      message?: string;
      requestedSchema?: Record<string, unknown>;
    };
    if (params.mode !== undefined && params.mode !== 'form') return { action: 'decline' };
    const message = String(params.message ?? '').slice(0, MAX_MESSAGE_CHARS);
    const schema = params.requestedSchema ?? { type: 'object', properties: {} };
    const answer = await ask({
      type: 'ksadk_input',
      source: server,
      message,
      requested_schema: schema,
      request_key: keyOf('elicit', server, message, schema),
    });
    return answer.action === 'accept'
      ? { action: 'accept', content: answer.content as Record<string, string | number | boolean> }
      : { action: answer.action };
  });
}

/** Model requests (sampling): capped in tokens, asked of the human unless the server is trusted. */
function installSampling(
  client: Client,
  types: SdkTypes,
  server: string,
  ask: Ask,
  options: McpServerRequestOptions,
): void {
  const sampler = options.sampler!;
  const cap = Math.max(1, options.samplingMaxTokens ?? DEFAULT_SAMPLING_MAX_TOKENS);
  const trusted = new Set(options.trustedSamplingServers ?? []);
  client.setRequestHandler(types.CreateMessageRequestSchema, async (request) => {
    const params = request.params;
    const sampling: McpSamplingRequest = {
      server,
      messages: params.messages as McpSamplingRequest['messages'],
      maxTokens: Math.min(cap, params.maxTokens),
      ...(params.systemPrompt !== undefined ? { systemPrompt: params.systemPrompt } : {}),
      ...(params.temperature !== undefined ? { temperature: params.temperature } : {}),
      ...(params.stopSequences !== undefined ? { stopSequences: params.stopSequences } : {}),
    };
    if (!trusted.has(server)) {
      const preview = JSON.stringify(sampling.messages).slice(0, 500);
      const answer = await ask({
        type: 'ksadk_input',
        source: server,
        message: `MCP server ${server} asks to run a model request (up to ${sampling.maxTokens} tokens): ${preview}. Allow it?`,
        requested_schema: {
          type: 'object',
          properties: { allow: { type: 'boolean', title: 'Allow this model request' } },
          required: ['allow'],
        },
        request_key: keyOf('sample', server, sampling),
      });
      if (answer.action !== 'accept' || answer.content['allow'] !== true) {
        throw new types.McpError(
          types.ErrorCode.InvalidRequest,
          'The user declined the model request.',
        );
      }
    }
    const result = await sampler(sampling);
    return {
      role: 'assistant',
      content: { type: 'text', text: String(result.content?.text ?? '') },
      model: String(result.model ?? 'unknown'),
      ...(result.stopReason ? { stopReason: result.stopReason } : {}),
    };
  });
}

/** The roots the host lists. */
function installRoots(
  client: Client,
  types: SdkTypes,
  roots: NonNullable<McpServerRequestOptions['roots']>,
): void {
  client.setRequestHandler(types.ListRootsRequestSchema, async () => ({
    roots: (await roots()).map((root) => ({
      uri: root.uri,
      ...(root.name ? { name: root.name } : {}),
    })),
  }));
}

/** Log messages go to `onLog`; one that throws changes nothing. */
function installLogging(
  client: Client,
  types: SdkTypes,
  server: string,
  onLog: McpServerRequestOptions['onLog'],
): void {
  client.setNotificationHandler(types.LoggingMessageNotificationSchema, (notification) => {
    if (!onLog) return;
    try {
      onLog({
        server,
        level: notification.params.level,
        ...(notification.params.logger ? { logger: notification.params.logger } : {}),
        data: notification.params.data,
      });
    } catch {
      // A logger that throws changes nothing.
    }
  });
}

/**
 * Server-initiated requests of one toolset: the capabilities to declare, the handlers to install on
 * each new client, and the calls in flight those requests are attributed to. MCP does not say which
 * `tools/call` a request belongs to; with exactly one call in flight it is that call's, otherwise
 * (none, or several at once) it is declined.
 */
export function createServerRequests(server: string, options: McpServerRequestOptions) {
  const inflight = new Set<{ call: InflightCall; push(question: Question): void }>();
  const capabilities = {
    ...(options.elicitation ? { elicitation: {} } : {}),
    ...(options.sampler ? { sampling: {} } : {}),
    ...(options.roots ? { roots: { listChanged: false } } : {}),
  };

  /** Routes a question to the single call in flight; declines when that is not one call. */
  const ask: Ask = (request) =>
    new Promise<HumanInputAnswer>((resolve) => {
      const calls = [...inflight];
      if (calls.length !== 1) {
        resolve({ action: 'decline' });
        return;
      }
      const [only] = calls;
      only?.push({
        request: {
          ...request,
          tool_call_id: only.call.context.callId,
          tool_name: only.call.context.toolName,
        },
        respond: resolve,
      });
    });

  const install = async (client: Client): Promise<void> => {
    const types = await import('@modelcontextprotocol/sdk/types.js');
    if (options.elicitation) installElicitation(client, types, server, ask);
    if (options.sampler) installSampling(client, types, server, ask, options);
    if (options.roots) installRoots(client, types, options.roots);
    installLogging(client, types, server, options.onLog);
  };

  return {
    capabilities,
    install,
    /** Registers a call in flight; `end()` when it is over. */
    begin(context: ToolExecutionContext): InflightCall & { end(): void } {
      const queue: Question[] = [];
      let waiting: ((question: Question) => void) | undefined;
      const entry = {
        call: undefined as unknown as InflightCall,
        push(question: Question) {
          if (waiting) {
            const wake = waiting;
            waiting = undefined;
            wake(question);
          } else queue.push(question);
        },
      };
      const call: InflightCall & { end(): void } = {
        context,
        nextQuestion: () =>
          new Promise<Question>((resolve) => {
            const queued = queue.shift();
            if (queued) resolve(queued);
            else waiting = resolve;
          }),
        end() {
          inflight.delete(entry);
          // Questions nobody will answer now are cancelled.
          for (const question of queue.splice(0)) question.respond({ action: 'cancel' });
        },
      };
      entry.call = call;
      inflight.add(entry);
      return call;
    },
  };
}
