import { createTurnScript, type ScriptedTurn } from '@ksadk/core/testing';

/** A `fetch` for the `openai` client that answers from a script, and what it was asked. */
export interface ScriptedOpenAIFetch {
  readonly fetch: typeof fetch;
  /** Request bodies, in order. */
  readonly requests: Record<string, unknown>[];
}

/**
 * A `fetch` that plays an OpenAI model from a script, for offline agents and tests: Chat
 * Completions (`…/chat/completions`) and Responses (`…/responses`) bodies are built per
 * endpoint. Turns use the one scripted-turn format of every KsADK adapter (`'text'`,
 * `{ toolCalls: [{ name, args }] }`, or a function of the request body); `requests` records the
 * bodies. Give it to `new OpenAI({ apiKey: 'offline', baseURL: 'http://scripted.invalid/v1', fetch })`.
 *
 * @example
 * ```ts
 * const scripted = createScriptedOpenAIFetch([{ toolCalls: [{ name: 'read_note', args: { title: 'a' } }] }, 'Done.']);
 * const client = new OpenAI({ apiKey: 'offline', baseURL: 'http://scripted.invalid/v1', fetch: scripted.fetch, maxRetries: 0 });
 * ```
 */
export function createScriptedOpenAIFetch(
  turns: ScriptedTurn<Record<string, unknown>>[],
): ScriptedOpenAIFetch {
  const requests: Record<string, unknown>[] = [];
  const script = createTurnScript(turns);
  let count = 0;
  const json = (body: unknown, status = 200): Response =>
    new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json' } });
  const scriptedFetch = async (
    url: string | URL | Request,
    init?: RequestInit,
  ): Promise<Response> => {
    const body = JSON.parse(String(init?.body ?? '{}')) as Record<string, unknown>;
    requests.push(body);
    let reply: ReturnType<typeof script.next>;
    try {
      reply = script.next(body);
    } catch (error) {
      return json({ error: { message: (error as Error).message } }, 500);
    }
    count += 1;
    const calls = reply.toolCalls.map((call) => ({
      id: call.id,
      name: call.name,
      arguments: typeof call.args === 'string' ? call.args : JSON.stringify(call.args),
    }));
    const text = calls.length > 0 ? reply.text : (reply.text ?? '');
    if (String(url).endsWith('/responses')) {
      return json({
        id: `resp_${count}`,
        object: 'response',
        created_at: 0,
        model: String(body['model'] ?? 'scripted'),
        status: 'completed',
        output:
          calls.length === 0
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
