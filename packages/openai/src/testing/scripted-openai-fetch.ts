/** One scripted model turn: text, or tool calls (arguments as objects), or a function of the request body. */
export type ScriptedOpenAITurn =
  | string
  | { toolCalls: { name: string; arguments: Record<string, unknown> | string; id?: string }[] }
  | ((body: Record<string, unknown>) =>
      | string
      | {
          toolCalls: { name: string; arguments: Record<string, unknown> | string; id?: string }[];
        });

/** A `fetch` for the `openai` client that answers from a script, and what it was asked. */
export interface ScriptedOpenAIFetch {
  readonly fetch: typeof fetch;
  /** Request bodies, in order. */
  readonly requests: Record<string, unknown>[];
}

/**
 * A `fetch` that plays an OpenAI model from a script, for offline agents and tests: Chat
 * Completions (`…/chat/completions`) and Responses (`…/responses`) bodies are built per
 * endpoint. Give it to `new OpenAI({ apiKey: 'offline', baseURL: 'http://scripted.invalid/v1', fetch })`.
 *
 * @example
 * ```ts
 * const scripted = createScriptedOpenAIFetch([{ toolCalls: [{ name: 'read_note', arguments: { title: 'a' } }] }, 'Done.']);
 * const client = new OpenAI({ apiKey: 'offline', baseURL: 'http://scripted.invalid/v1', fetch: scripted.fetch, maxRetries: 0 });
 * ```
 */
export function createScriptedOpenAIFetch(turns: ScriptedOpenAITurn[]): ScriptedOpenAIFetch {
  const requests: Record<string, unknown>[] = [];
  let count = 0;
  const json = (body: unknown, status = 200): Response =>
    new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json' } });
  const scriptedFetch = async (
    url: string | URL | Request,
    init?: RequestInit,
  ): Promise<Response> => {
    const body = JSON.parse(String(init?.body ?? '{}')) as Record<string, unknown>;
    requests.push(body);
    const next = turns.shift();
    if (next === undefined)
      return json({ error: { message: 'The scripted model has no more turns.' } }, 500);
    const turn = typeof next === 'function' ? next(body) : next;
    count += 1;
    const calls =
      typeof turn === 'string'
        ? []
        : turn.toolCalls.map((call, index) => ({
            id: call.id ?? `call_${count}_${index}`,
            name: call.name,
            arguments:
              typeof call.arguments === 'string' ? call.arguments : JSON.stringify(call.arguments),
          }));
    const text = typeof turn === 'string' ? turn : null;
    if (String(url).endsWith('/responses')) {
      return json({
        id: `resp_${count}`,
        object: 'response',
        created_at: 0,
        model: String(body['model'] ?? 'scripted'),
        status: 'completed',
        output:
          text !== null
            ? [
                {
                  type: 'message',
                  id: `msg_${count}`,
                  role: 'assistant',
                  status: 'completed',
                  content: [{ type: 'output_text', text, annotations: [] }],
                },
              ]
            : calls.map((call) => ({
                type: 'function_call',
                id: `fc_${call.id}`,
                call_id: call.id,
                name: call.name,
                arguments: call.arguments,
                status: 'completed',
              })),
      });
    }
    return json({
      id: `chatcmpl-${count}`,
      object: 'chat.completion',
      created: 0,
      model: String(body['model'] ?? 'scripted'),
      choices: [
        {
          index: 0,
          logprobs: null,
          finish_reason: calls.length > 0 ? 'tool_calls' : 'stop',
          message: {
            role: 'assistant',
            content: text,
            refusal: null,
            ...(calls.length > 0
              ? {
                  tool_calls: calls.map((call) => ({
                    id: call.id,
                    type: 'function',
                    function: { name: call.name, arguments: call.arguments },
                  })),
                }
              : {}),
          },
        },
      ],
    });
  };
  return { fetch: scriptedFetch as typeof fetch, requests };
}
