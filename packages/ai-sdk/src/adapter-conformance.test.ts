// The adapter conformance kit of @ksadk/core/testing, through the real AI SDK (generateText) with
// a scripted model.
import { runWithInvocationContext, type ToolGateway } from '@ksadk/core';
import {
  type AdapterDecision,
  type AdapterDriver,
  type AdapterTurn,
  type ConformanceCall,
  checkAdapter,
} from '@ksadk/core/testing';
import { generateText, type ModelMessage, stepCountIs } from 'ai';
import { describe, expect, it } from 'vitest';
import { loadAiSdkTools } from './load-ai-sdk-tools.js';
import { createScriptedLanguageModel } from './testing/scripted-language-model.js';
import { toAiSdkTools } from './to-ai-sdk-tools.js';

const who = { accountId: 'acct-conformance', userId: 'u', sessionId: 's' };

type Part = {
  type: string;
  toolCallId?: string;
  approvalId?: string;
  output?: { type: string; value?: unknown; reason?: string };
};

/** The tool results in `messages`, by call id, as the model gets them. */
function resultsIn(messages: readonly ModelMessage[]): Record<string, unknown> {
  const results: Record<string, unknown> = {};
  for (const message of messages) {
    if (message.role !== 'tool') continue;
    for (const part of message.content as Part[]) {
      if (part.type !== 'tool-result' || !part.toolCallId || !part.output) continue;
      results[part.toolCallId] =
        part.output.type === 'execution-denied'
          ? { denied: true, reason: part.output.reason }
          : part.output.value;
    }
  }
  return results;
}

/**
 * The messages a run added: every step's (AI SDK 7 gives each step its own `response.messages`;
 * AI SDK 6 gives each step all of them so far).
 */
function addedBy(steps: readonly { response: { messages: ModelMessage[] } }[]): ModelMessage[] {
  const perStep = steps.map((step) => step.response.messages);
  const cumulative = perStep.every(
    (messages, index) =>
      index === 0 ||
      messages.slice(0, perStep[index - 1]!.length).every((m, at) => m === perStep[index - 1]![at]),
  );
  return cumulative ? (perStep.at(-1) ?? []) : perStep.flat();
}

/** What a turn runs with: the tool set, the gateway under it, and the kit's calls. */
interface Setup {
  readonly tools: ReturnType<typeof toAiSdkTools>;
  readonly gateway: ToolGateway;
  readonly calls: readonly ConformanceCall[];
}

/**
 * The host's part for a call that answered `credential_required` (the SDK cannot pause inside a
 * call): provide the key for the request in its result, then let the model call again.
 */
async function provideCredentials(
  setup: Setup,
  results: Readonly<Record<string, unknown>>,
  decisions: Readonly<Record<string, AdapterDecision>>,
): Promise<ConformanceCall[]> {
  const again: ConformanceCall[] = [];
  for (const [callId, decision] of Object.entries(decisions)) {
    if (typeof decision !== 'object' || !('credential' in decision)) continue;
    const request = (results[callId] as { credential_request?: { id: string } } | undefined)
      ?.credential_request;
    if (!request) continue;
    await runWithInvocationContext(who, () =>
      setup.gateway.provideCredential(request.id, decision.credential),
    );
    const call = setup.calls.find((candidate) => candidate.id === callId);
    if (call) again.push(call);
  }
  return again;
}

async function turnOf(
  setup: Setup,
  messages: ModelMessage[],
  turns: Parameters<typeof createScriptedLanguageModel>[0],
): Promise<AdapterTurn> {
  const { tools } = setup;
  const model = createScriptedLanguageModel(turns);
  const result = await runWithInvocationContext(who, () =>
    generateText({ model, tools, messages, stopWhen: stepCountIs(3) }),
  );
  const all = [...messages, ...addedBy(result.steps as never)];
  // What the model was given (its prompts), and what the last step produced when it paused.
  const results = resultsIn([
    ...all,
    ...model.doGenerateCalls.flatMap((call) => call.prompt as never),
  ]);
  const requests = result.content.filter((part) => part.type === 'tool-approval-request') as {
    approvalId: string;
    toolCall: { toolCallId: string };
  }[];
  return {
    results,
    paused: requests.map((request) => request.toolCall.toolCallId),
    resume: async (decisions) => {
      const again = await provideCredentials(setup, results, decisions);
      if (again.length > 0) return turnOf(setup, all, [{ toolCalls: again }, 'done']);
      return turnOf(
        setup,
        [
          ...all,
          {
            role: 'tool',
            content: requests.map((request) => ({
              type: 'tool-approval-response' as const,
              approvalId: request.approvalId,
              approved: decisions[request.toolCall.toolCallId] === 'approve',
            })),
          },
        ],
        ['done'],
      );
    },
  };
}

const aiSdkDriver: AdapterDriver = {
  name: '@ksadk/ai-sdk',
  // The AI SDK has no way for a running tool to ask the user something: the call is told the user
  // declined, and says so to the model.
  questions: 'decline',
  // Nor pause a call for the user's credential: the call answers credential_required, the host
  // provides it, and the model calls again.
  credentials: 'result',
  run: ({ tools, gateway, calls, onProgress }) =>
    turnOf(
      {
        tools: toAiSdkTools(tools, {
          gateway: gateway as ToolGateway,
          onProgress: (event) => onProgress(event),
        }),
        gateway: gateway as ToolGateway,
        calls,
      },
      [{ role: 'user', content: 'go' }],
      [{ toolCalls: calls }, 'done'],
    ),
  load: async (options) => {
    const load = await loadAiSdkTools(options);
    return {
      tools: load.tools,
      sources: load.assembly.sources,
      names: Object.keys(load.toolSet),
      close: load.close,
    };
  },
};

describe('the adapter conformance kit', () => {
  it('@ksadk/ai-sdk conforms', { timeout: 120_000 }, async () => {
    expect(await checkAdapter(aiSdkDriver)).toEqual([]);
  });

  it('fails an adapter that runs gated calls without asking', { timeout: 120_000 }, async () => {
    const careless: AdapterDriver = {
      name: 'careless',
      async run({ tools, gateway, calls }) {
        const results: Record<string, unknown> = {};
        for (const call of calls) {
          const target = tools.find((tool) => tool.name === call.name)!;
          // Approves whatever asks, without a human.
          let result = await gateway.invoke(target, call.args, { callId: call.id });
          const request = (result as { approval_request?: { id: string } }).approval_request;
          if (request) {
            const grant = await gateway.approve(request.id);
            result = await gateway.invoke(target, call.args, { callId: call.id, approval: grant });
          }
          results[call.id] = result;
        }
        const turn: AdapterTurn = { results, paused: [], resume: async () => turn };
        return turn;
      },
      load: () => Promise.reject(new Error('no loader')),
    };
    const failures = await checkAdapter(careless);
    expect(failures.some((failure) => failure.includes('the gated call ran before'))).toBe(true);
    expect(failures.some((failure) => failure.includes('forged approval'))).toBe(true);
    // It never hands progress to the host.
    expect(failures.some((failure) => failure.includes('the progress the host got'))).toBe(true);
    expect(failures.some((failure) => failure.includes('no loader'))).toBe(true);
  });
});
