// The adapter conformance kit of @ksadk/core/testing, through the real OpenAI Agents SDK (run, a
// RunState saved with toString and resumed with fromString) with a scripted model.
import { runWithInvocationContext, type ToolGateway } from '@ksadk/core';
import {
  type AdapterDecision,
  type AdapterDriver,
  type AdapterTurn,
  type ConformanceCall,
  checkAdapter,
} from '@ksadk/core/testing';
import { Agent, RunState, type RunToolApprovalItem, run } from '@openai/agents';
import { describe, expect, it } from 'vitest';
import { approvalRequestOf, settleRejections } from './interruptions.js';
import { loadOpenAIAgentsTools } from './load-openai-agents-tools.js';
import { outputsOf, sentToModel } from './test-fixtures/test-support.js';
import { createScriptedModel } from './testing/scripted-model.js';
import { type OpenAIAgentsTool, toOpenAIAgentsTools } from './to-openai-agents-tools.js';

const who = { accountId: 'acct-conformance', userId: 'u', sessionId: 's' };

/** JSON text of an SDK output, parsed back when it is one JSON value (the kit reads results as JSON). */
const resultOf = (text: string): unknown => {
  const value = JSON.parse(text) as unknown;
  const inner = (value as { type?: string; text?: string } | null)?.text;
  if (typeof inner !== 'string') return value;
  try {
    return JSON.parse(inner) as unknown;
  } catch {
    return inner;
  }
};

const callIdOf = (item: RunToolApprovalItem): string => (item.rawItem as { callId: string }).callId;

/** What a driver run works with: the tools made once, their gateway, the kit's calls. */
interface Kit {
  readonly tools: OpenAIAgentsTool[];
  readonly gateway: ToolGateway;
  readonly calls: readonly ConformanceCall[];
}

/**
 * One run of the agent, from the user's input or a saved state with the host's decisions, as the
 * host runs it: an interruption KsADK did not ask for (arguments the SDK could not read) is
 * rejected at once — nothing could run it — and the run goes on.
 */
async function turnOf(
  kit: Kit,
  input: string | { saved: string; decisions: Readonly<Record<string, AdapterDecision>> },
  turns: Parameters<typeof createScriptedModel>[0],
): Promise<AdapterTurn> {
  const model = createScriptedModel(turns);
  const agent = new Agent({ name: 'kit', model, tools: kit.tools });
  const results: Record<string, unknown> = {};
  const { paused, saved } = await runWithInvocationContext(who, async () => {
    let start: string | RunState<unknown, Agent> = 'go';
    if (typeof input !== 'string') {
      const state = await RunState.fromString(agent, input.saved);
      for (const item of state.getInterruptions()) {
        const decision = input.decisions[callIdOf(item)];
        if (decision === 'approve') state.approve(item);
        if (decision === 'reject') state.reject(item, { message: 'Rejected by the user.' });
      }
      await settleRejections(state);
      start = state;
    }
    let result = await run(agent, start);
    for (let round = 0; round < 3; round += 1) {
      Object.assign(results, outputsOf(result.newItems));
      const unasked = [];
      for (const item of result.interruptions)
        if (!(await approvalRequestOf(item))) unasked.push(item);
      if (unasked.length === 0) break;
      for (const item of unasked)
        result.state.reject(item, { message: 'Its arguments could not be read.' });
      result = await run(agent, result.state);
    }
    Object.assign(results, outputsOf(result.newItems));
    return { paused: result.interruptions.map(callIdOf), saved: result.state.toString() };
  });
  Object.assign(results, sentToModel(model));
  const answered = Object.fromEntries(
    Object.entries(results).map(([id, text]) => [id, resultOf(text as string)]),
  );
  return {
    results: answered,
    paused,
    resume: async (decisions) => {
      // A credential is provided through the gateway; the model then makes the call again.
      const signedIn = Object.entries(decisions).filter(
        (entry): entry is [string, { credential: { apiKey: string } }] =>
          typeof entry[1] === 'object' && 'credential' in entry[1],
      );
      if (signedIn.length === 0) return turnOf(kit, { saved, decisions }, ['done']);
      for (const [id, { credential }] of signedIn) {
        const request = (answered[id] as { credential_request: { id: string } }).credential_request;
        await runWithInvocationContext(who, () =>
          kit.gateway.provideCredential(request.id, credential),
        );
      }
      const again = kit.calls.filter((call) => signedIn.some(([id]) => id === call.id));
      return turnOf(kit, 'go', [{ toolCalls: again }, 'done']);
    },
  };
}

const agentsDriver: AdapterDriver = {
  name: '@ksadk/openai-agents',
  // A function tool's `execute` cannot pause the run: a question mid-call is declined, and a call
  // that needs the user's credential answers `credential_required` for the host to provide it.
  questions: 'decline',
  credentials: 'result',
  run: ({ tools, gateway, calls, onProgress }) => {
    const kit = { tools: toOpenAIAgentsTools(tools, { gateway, onProgress }), gateway, calls };
    return turnOf(kit, 'go', [{ toolCalls: calls }, 'done']);
  },
  load: async (options) => {
    const load = await loadOpenAIAgentsTools(options);
    return {
      tools: load.tools,
      sources: load.assembly.sources,
      names: load.agentTools.map((made) => made.name),
      close: load.close,
    };
  },
};

describe('the adapter conformance kit', () => {
  it('@ksadk/openai-agents conforms', { timeout: 120_000 }, async () => {
    expect(await checkAdapter(agentsDriver)).toEqual([]);
  });
});
