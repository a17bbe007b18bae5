import { createTurnScript, type ScriptedTurn } from '@ksadk/core/testing';

/** A `fetch` for the `@anthropic-ai/sdk` client that answers from a script, and what it was asked. */
export interface ScriptedAnthropicFetch {
  readonly fetch: typeof fetch;
  /** Request bodies of `POST /v1/messages`, in order. */
  readonly requests: Record<string, unknown>[];
}

type Block =
  | { type: 'text'; text: string; citations: null }
  | { type: 'tool_use'; id: string; name: string; input: unknown; caller: { type: 'direct' } };

const json = (body: unknown, status = 200): Response =>
  new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json' } });

/** The message as server-sent events, the way the Messages API streams it. */
function streamed(message: Record<string, unknown> & { content: Block[] }): Response {
  const events: [string, unknown][] = [
    [
      'message_start',
      { type: 'message_start', message: { ...message, content: [], stop_reason: null } },
    ],
  ];
  message.content.forEach((block, index) => {
    const start = block.type === 'text' ? { ...block, text: '' } : { ...block, input: {} };
    events.push([
      'content_block_start',
      { type: 'content_block_start', index, content_block: start },
    ]);
    const delta =
      block.type === 'text'
        ? { type: 'text_delta', text: block.text }
        : { type: 'input_json_delta', partial_json: JSON.stringify(block.input) };
    events.push(['content_block_delta', { type: 'content_block_delta', index, delta }]);
    events.push(['content_block_stop', { type: 'content_block_stop', index }]);
  });
  events.push([
    'message_delta',
    {
      type: 'message_delta',
      delta: { stop_reason: message['stop_reason'], stop_sequence: null },
      usage: { output_tokens: 1 },
    },
  ]);
  events.push(['message_stop', { type: 'message_stop' }]);
  const text = events
    .map(([event, data]) => `event: ${event}\ndata: ${JSON.stringify(data)}\n\n`)
    .join('');
  return new Response(text, { headers: { 'content-type': 'text/event-stream' } });
}

/**
 * A `fetch` that plays Claude from a script, for offline agents and tests: `POST /v1/messages`
 * answered with a Messages API `message` (or its server-sent events when the request streams).
 * Turns use the one scripted-turn format of every KsADK adapter (`'text'`,
 * `{ toolCalls: [{ name, args }] }`, or a function of the request body); `requests` records the
 * bodies. Give it to `new Anthropic({ apiKey: 'offline', baseURL: 'http://scripted.invalid', fetch })`.
 *
 * @example
 * ```ts
 * const scripted = createScriptedAnthropicFetch([{ toolCalls: [{ name: 'read_note', args: { title: 'a' } }] }, 'Done.']);
 * const client = new Anthropic({ apiKey: 'offline', baseURL: 'http://scripted.invalid', fetch: scripted.fetch, maxRetries: 0 });
 * ```
 */
export function createScriptedAnthropicFetch(
  turns: ScriptedTurn<Record<string, unknown>>[],
): ScriptedAnthropicFetch {
  const requests: Record<string, unknown>[] = [];
  const script = createTurnScript(turns);
  let count = 0;
  const scriptedFetch = async (
    _url: string | URL | Request,
    init?: RequestInit,
  ): Promise<Response> => {
    const body = JSON.parse(String(init?.body ?? '{}')) as Record<string, unknown>;
    requests.push(body);
    let reply: ReturnType<typeof script.next>;
    try {
      reply = script.next(body);
    } catch (error) {
      return json(
        { type: 'error', error: { type: 'api_error', message: (error as Error).message } },
        500,
      );
    }
    count += 1;
    const content: Block[] = [
      ...(reply.text ? [{ type: 'text' as const, text: reply.text, citations: null }] : []),
      ...reply.toolCalls.map((call) => ({
        type: 'tool_use' as const,
        id: call.id,
        name: call.name,
        input: typeof call.args === 'string' ? parseOrKeep(call.args) : call.args,
        caller: { type: 'direct' as const },
      })),
    ];
    const message = {
      id: `msg_${count}`,
      type: 'message',
      role: 'assistant',
      model: String(body['model'] ?? 'scripted'),
      container: null,
      content,
      stop_reason: reply.toolCalls.length > 0 ? 'tool_use' : 'end_turn',
      stop_sequence: null,
      usage: { input_tokens: 1, output_tokens: 1 },
    };
    return body['stream'] === true ? streamed(message) : json(message);
  };
  return { fetch: scriptedFetch as typeof fetch, requests };
}

/** Arguments given as text: parsed when they are JSON, else kept as the text itself. */
function parseOrKeep(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}
