// The adapter conformance kit of @ksadk/core/testing, through a real LangGraph createAgent with a
// scripted model, a MemorySaver checkpointer, interrupts and Command resumes.
import { runWithInvocationContext, type ToolProgressEvent } from '@ksadk/core';
import { type AdapterDriver, type AdapterTurn, checkAdapter } from '@ksadk/core/testing';
import { AIMessage, type BaseMessage, ToolMessage } from '@langchain/core/messages';
import { fakeModel } from '@langchain/core/testing';
import { Command, MemorySaver } from '@langchain/langgraph';
import { createAgent } from 'langchain';
import { describe, expect, it } from 'vitest';
import { loadLangGraphTools } from './create-ksadk-agent.js';
import { toLangGraphTools } from './to-langgraph-tools.js';

const who = { accountId: 'acct-conformance', userId: 'u', sessionId: 's' };
let threads = 0;

/** What the driver uses of an agent. */
interface Agent {
  invoke(input: unknown, config: Config): Promise<unknown>;
  stream(input: unknown, config: unknown): Promise<AsyncIterable<[string, unknown]>>;
  getState(config: Config): Promise<{ config: unknown }>;
}

/** Runs the agent streaming its values and the custom events, where the adapter puts progress. */
async function streamed(
  agent: Agent,
  input: unknown,
  config: Config,
  onProgress: (event: ToolProgressEvent) => void,
): Promise<unknown> {
  let last: unknown;
  const stream = await agent.stream(input, { ...config, streamMode: ['custom', 'values'] });
  for await (const [mode, chunk] of stream) {
    // An interrupt comes as a values chunk of its own: it joins the state before it.
    if (mode !== 'custom') last = { ...(last as object), ...(chunk as object) };
    else if ((chunk as { type?: string }).type === 'ksadk_progress')
      onProgress(chunk as ToolProgressEvent);
  }
  return last;
}
type Config = { configurable: Record<string, string> };

/** A state as the kit sees it; a resume forks from the paused checkpoint, so twice is a replay. */
async function turnOf(agent: Agent, state: unknown, config: Config): Promise<AdapterTurn> {
  const results: Record<string, unknown> = {};
  for (const message of (state as { messages: BaseMessage[] }).messages)
    if (ToolMessage.isInstance(message)) results[message.tool_call_id] = message.content;
  const interrupts =
    (state as { __interrupt__?: { value: { type?: string; tool_call_id?: string } }[] })
      .__interrupt__ ?? [];
  const pausedFor = (type: string) =>
    interrupts.flatMap((item) =>
      item.value.type === type && item.value.tool_call_id ? [item.value.tool_call_id] : [],
    );
  const at = (await agent.getState(config)).config as Config;
  return {
    results,
    paused: pausedFor('ksadk_approval'),
    asked: pausedFor('ksadk_input'),
    signIns: pausedFor('ksadk_credential'),
    resume: async (decisions) => {
      const [decision] = Object.values(decisions);
      const resume =
        typeof decision !== 'object'
          ? { action: decision }
          : 'credential' in decision
            ? decision.credential
            : { action: 'accept', content: decision.answer };
      const resumed = await runWithInvocationContext(who, () =>
        agent.invoke(new Command({ resume }), at),
      );
      return turnOf(agent, resumed, config);
    },
  };
}

const langGraphDriver: AdapterDriver = {
  name: '@ksadk/langgraph',
  async run({ tools, gateway, calls, onProgress }) {
    let model = fakeModel().respondWithTools(
      calls.map((call) => ({
        id: call.id,
        name: call.name,
        args: typeof call.args === 'string' ? { raw: call.args } : call.args,
      })),
    );
    for (let index = 0; index < 4; index += 1) model = model.respond(new AIMessage('done'));
    const agent = createAgent({
      model,
      tools: toLangGraphTools([...tools], { gateway }),
      checkpointer: new MemorySaver(),
    }) as unknown as Agent;
    threads += 1;
    const config = { configurable: { thread_id: `conformance-${threads}` } };
    const state = await runWithInvocationContext(who, () =>
      streamed(agent, { messages: [{ role: 'user', content: 'go' }] }, config, onProgress),
    );
    return turnOf(agent, state, config);
  },
  async load(options) {
    const load = await loadLangGraphTools(options);
    return {
      tools: load.assembly.tools,
      sources: load.assembly.sources,
      names: load.tools.map((made) => made.name),
      close: load.close,
    };
  },
};

describe('the adapter conformance kit', () => {
  it('@ksadk/langgraph conforms', { timeout: 120_000 }, async () => {
    expect(await checkAdapter(langGraphDriver)).toEqual([]);
  });
});
