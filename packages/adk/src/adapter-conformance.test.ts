// The adapter conformance kit of @ksadk/core/testing, through a real ADK LlmAgent and
// InMemoryRunner with a scripted model; approvals are `adk_request_confirmation` calls answered
// with their function response.
import {
  InMemoryRunner,
  LlmAgent,
  LogLevel,
  REQUEST_CONFIRMATION_FUNCTION_CALL_NAME,
  setLogLevel,
} from '@google/adk';
import type { Content, FunctionCall } from '@google/genai';
import {
  type AdapterDecision,
  type AdapterDriver,
  type AdapterTurn,
  checkAdapter,
} from '@ksadk/core/testing';
import { beforeAll, describe, expect, it } from 'vitest';
import { loadAdkAgent } from './load-adk-agent.js';
import { ScriptedLlm } from './testing/scripted-llm.js';
import { toAdkTools } from './to-adk-tools.js';

beforeAll(() => setLogLevel(LogLevel.ERROR));

type Event = { content?: Content };
type Runner = InMemoryRunner;

async function collect(iterable: AsyncIterable<Event>): Promise<Event[]> {
  const events: Event[] = [];
  for await (const event of iterable) events.push(event);
  return events;
}

const partsOf = (events: readonly Event[]) => events.flatMap((event) => event.content?.parts ?? []);

/** The kit's decision as a confirmation's response: confirmed, or the question's answer. */
function responseOf(decision: AdapterDecision | undefined): Record<string, unknown> {
  if (typeof decision === 'object')
    return {
      confirmed: true,
      payload:
        'credential' in decision
          ? decision.credential
          : { action: 'accept', content: decision.answer },
    };
  return { confirmed: decision === 'approve' };
}

/** The turn so far (every event of the session), and how to answer its confirmations. */
function turnOf(runner: Runner, sessionId: string, events: readonly Event[]): AdapterTurn {
  const results: Record<string, unknown> = {};
  const confirmations: FunctionCall[] = [];
  for (const part of partsOf(events)) {
    const response = part.functionResponse;
    if (response?.id && response.name !== REQUEST_CONFIRMATION_FUNCTION_CALL_NAME)
      results[response.id] = response.response;
    if (part.functionCall?.name === REQUEST_CONFIRMATION_FUNCTION_CALL_NAME)
      confirmations.push(part.functionCall);
  }
  const answered = new Set(
    partsOf(events).flatMap((part) =>
      part.functionResponse?.name === REQUEST_CONFIRMATION_FUNCTION_CALL_NAME
        ? [part.functionResponse.id]
        : [],
    ),
  );
  const open = confirmations.filter((call) => !answered.has(call.id));
  const originalOf = (call: FunctionCall) =>
    (call.args as { originalFunctionCall?: { id?: string } } | undefined)?.originalFunctionCall
      ?.id ?? '';
  /** What a confirmation is for: an approval, or a question the call asked (`ksadk_input`). */
  const payloadType = (call: FunctionCall) =>
    (call.args as { toolConfirmation?: { payload?: { type?: string } } } | undefined)
      ?.toolConfirmation?.payload?.type;
  const openFor = (type: string) =>
    open.filter((call) => payloadType(call) === type).map(originalOf);
  return {
    results,
    paused: openFor('ksadk_approval'),
    asked: openFor('ksadk_input'),
    signIns: openFor('ksadk_credential'),
    resume: async (decisions) => {
      const answer: Content = {
        role: 'user',
        parts: open.map((call) => ({
          functionResponse: {
            id: call.id,
            name: REQUEST_CONFIRMATION_FUNCTION_CALL_NAME,
            response: responseOf(decisions[originalOf(call)]),
          },
        })),
      };
      const more = await collect(runner.runAsync({ userId: 'u1', sessionId, newMessage: answer }));
      return turnOf(runner, sessionId, [...events, { content: answer }, ...more]);
    },
  };
}

const adkDriver: AdapterDriver = {
  name: '@ksadk/adk',
  async run({ tools, gateway, calls, onProgress }) {
    const agent = new LlmAgent({
      name: 'assistant',
      model: new ScriptedLlm([
        {
          toolCalls: calls.map((call) => ({
            id: call.id,
            name: call.name,
            args: typeof call.args === 'string' ? { raw: call.args } : call.args,
          })),
        },
        'done',
        'done',
        'done',
      ]),
      tools: toAdkTools([...tools], { gateway, onProgress }),
    });
    const runner = new InMemoryRunner({ agent, appName: 'conformance' });
    const { id } = await runner.sessionService.createSession({
      appName: 'conformance',
      userId: 'u1',
    });
    const events = await collect(
      runner.runAsync({
        userId: 'u1',
        sessionId: id,
        newMessage: { role: 'user', parts: [{ text: 'go' }] },
      }),
    );
    return turnOf(runner, id, events);
  },
  async load(options) {
    const agent = new LlmAgent({ name: 'assistant', model: new ScriptedLlm(['done']) });
    const load = await loadAdkAgent(agent, options);
    return {
      tools: load.assembly.tools,
      sources: load.assembly.sources,
      names: agent.tools.map((made) => (made as { name: string }).name),
      close: load.close,
    };
  },
};

describe('the adapter conformance kit', () => {
  it('@ksadk/adk conforms', { timeout: 120_000 }, async () => {
    expect(await checkAdapter(adkDriver)).toEqual([]);
  });
});
