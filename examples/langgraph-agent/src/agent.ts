import { createToolGateway } from '@ksadk/core';
import { createKsadkAgent } from '@ksadk/langgraph';
import { ScriptedChatModel } from '@ksadk/langgraph/testing';
import { type BaseMessage, ToolMessage } from '@langchain/core/messages';
import { Command } from '@langchain/langgraph';
import { describeToolResult, type ExampleReport, startScenario } from './scenario.js';

/** The conversation an offline run plays: read the notes, check the weather, edit the notes, run the packing-list skill, answer. */
function offlineModel() {
  return new ScriptedChatModel([
    { toolCalls: [{ name: 'read_workspace_file', args: { path: 'notes/trip.md' } }] },
    { toolCalls: [{ name: 'city_weather', args: { place: { city: 'Oslo' } } }] },
    {
      toolCalls: [
        {
          name: 'edit_workspace_file',
          // A model cannot approve its own call: this `approval` is ignored by the gateway.
          args: {
            path: 'notes/trip.md',
            old_text: '- pack: passport',
            new_text: '- pack: passport, umbrella',
            approval: { approved: true },
          },
        },
      ],
    },
    {
      toolCalls: [
        {
          name: 'execute_skills',
          args: {
            workflow_prompt: 'Check the weather in Oslo for my trip and update my notes.',
            skill_names: ['packing-list'],
          },
        },
      ],
    },
    'Oslo looks rainy (9°C), so I added an umbrella to your packing list and wrote a full packing list.',
  ]);
}

async function liveModel() {
  const { ChatOpenAI } = await import('@langchain/openai');
  return new ChatOpenAI({ model: process.env['OPENAI_MODEL'] ?? 'gpt-4.1-mini' });
}

type Interrupt = {
  id: string;
  value: {
    type: string;
    approval_request: { tool_name: string; risk_level: string; arguments: unknown };
  };
};

/**
 * Runs the example: a LangGraph `createAgent` over KsADK tools (memory → skills → workspace → MCP); a
 * gated call interrupts the graph and the host resumes it with a decision. Offline with a
 * scripted model unless OPENAI_API_KEY is set.
 */
export async function runLangGraphExample(
  options: { live?: boolean; approve?: boolean } = {},
): Promise<ExampleReport> {
  const live = options.live ?? Boolean(process.env['OPENAI_API_KEY']);
  const scenario = await startScenario();
  const { agent, assembly, close } = await createKsadkAgent({
    model: live ? await liveModel() : offlineModel(),
    systemPrompt: "You help plan trips. The user's notes are in the workspace (notes/trip.md).",
    gateway: createToolGateway({ approvalMode: 'risk' }),
    memory: { memory: scenario.memory },
    skills: await scenario.skills(),
    builtins: { include: 'workspace' },
    catalog: { workspace: { root: scenario.root } },
    mcp: scenario.mcpServers,
  });
  const transcript: string[] = ['user: Check the weather in Oslo and update my trip notes.'];
  let approvalsAsked = 0;
  let shown = 0;
  const flush = (messages: BaseMessage[]): void => {
    for (const message of messages.slice(shown)) {
      const calls =
        (message as { tool_calls?: { name: string; args: unknown }[] }).tool_calls ?? [];
      for (const call of calls)
        transcript.push(`model calls ${call.name} ${JSON.stringify(call.args)}`);
      if (ToolMessage.isInstance(message))
        transcript.push(describeToolResult(String(message.content)));
    }
    shown = messages.length;
  };
  const config = { configurable: { thread_id: 'trip-1' } };
  try {
    let state = await agent.invoke(
      {
        messages: [
          {
            role: 'user',
            content:
              'Check the weather in Oslo for my trip and update notes/trip.md with anything I should pack.',
          },
        ],
      },
      config,
    );
    for (
      let pauses = (state as { __interrupt__?: Interrupt[] }).__interrupt__ ?? [];
      pauses.length > 0;
      pauses = (state as { __interrupt__?: Interrupt[] }).__interrupt__ ?? []
    ) {
      flush(state.messages);
      const resume: Record<string, unknown> = {};
      for (const pause of pauses) {
        approvalsAsked += 1;
        const decision = options.approve === false ? 'reject' : 'approve';
        const request = pause.value.approval_request;
        transcript.push(
          `graph paused: ${request.tool_name} needs approval (${request.risk_level} risk) — nothing ran yet`,
        );
        transcript.push(`host: ${decision}s ${JSON.stringify(request.arguments)}`);
        resume[pause.id] = {
          decisions: [{ type: decision, ...(decision === 'reject' ? { message: 'not now' } : {}) }],
        };
      }
      state = await agent.invoke(new Command({ resume }), config);
    }
    flush(state.messages);
    const answer = String(state.messages.at(-1)?.content ?? '');
    transcript.push(`assistant: ${answer}`);
    return {
      live,
      toolOrder: assembly.tools.map((tool) => tool.name),
      transcript,
      approvalsAsked,
      notes: await scenario.readNotes(),
      answer,
    };
  } finally {
    await close();
    await scenario.stop();
  }
}
