import {
  InMemoryRunner,
  LlmAgent,
  LogLevel,
  REQUEST_CONFIRMATION_FUNCTION_CALL_NAME,
  setLogLevel,
} from '@google/adk';
import type { Content, FunctionCall } from '@google/genai';
import { loadAdkAgent } from '@ksadk/adk';
import { ScriptedLlm } from '@ksadk/adk/testing';
import { createToolGateway } from '@ksadk/core';
import { describeToolResult, type ExampleReport, startScenario } from './scenario.js';

/** The conversation an offline run plays: read the notes, check the weather, edit the notes, run the packing-list skill, answer. */
function offlineModel() {
  return new ScriptedLlm([
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

type Event = { content?: Content; author?: string };

/**
 * Runs the example: an ADK `LlmAgent` with KsADK tools loaded in order (memory → skills →
 * workspace → MCP); a gated call asks for tool confirmation and the host answers it. Offline with a
 * scripted model unless GEMINI_API_KEY is set.
 */
export async function runAdkExample(
  options: { live?: boolean; approve?: boolean } = {},
): Promise<ExampleReport> {
  setLogLevel(LogLevel.ERROR);
  const live =
    options.live ?? Boolean(process.env['GEMINI_API_KEY'] || process.env['GOOGLE_GENAI_API_KEY']);
  const scenario = await startScenario();
  const agent = new LlmAgent({
    name: 'trip_helper',
    model: live ? (process.env['GEMINI_MODEL'] ?? 'gemini-2.5-flash') : offlineModel(),
    instruction: "You help plan trips. The user's notes are in the workspace (notes/trip.md).",
  });
  const { assembly, close } = await loadAdkAgent(agent, {
    gateway: createToolGateway({ approvalMode: 'risk' }),
    memory: { memory: scenario.memory },
    skills: await scenario.skills(),
    builtins: { include: 'workspace' },
    catalog: { workspace: { root: scenario.root } },
    mcp: scenario.mcpServers,
  });
  const runner = new InMemoryRunner({ agent, appName: 'trip' });
  const session = await runner.sessionService.createSession({
    appName: 'trip',
    userId: 'traveller',
  });
  const transcript: string[] = ['user: Check the weather in Oslo and update my trip notes.'];
  let approvalsAsked = 0;
  let answer = '';
  const run = async (message: Content): Promise<FunctionCall[]> => {
    const gates: FunctionCall[] = [];
    for await (const event of runner.runAsync({
      userId: 'traveller',
      sessionId: session.id,
      newMessage: message,
    }) as AsyncIterable<Event>) {
      for (const part of event.content?.parts ?? []) {
        if (part.functionCall?.name === REQUEST_CONFIRMATION_FUNCTION_CALL_NAME)
          gates.push(part.functionCall);
        else if (part.functionCall)
          transcript.push(
            `model calls ${part.functionCall.name} ${JSON.stringify(part.functionCall.args)}`,
          );
        if (part.functionResponse)
          transcript.push(describeToolResult(JSON.stringify(part.functionResponse.response)));
        if (part.text && event.author === agent.name) answer = part.text;
      }
    }
    return gates;
  };
  try {
    let gates = await run({
      role: 'user',
      parts: [
        {
          text: 'Check the weather in Oslo for my trip and update notes/trip.md with anything I should pack.',
        },
      ],
    });
    while (gates.length > 0) {
      const parts = gates.map((gate) => {
        approvalsAsked += 1;
        const confirmed = options.approve !== false;
        const request = (
          gate.args as {
            toolConfirmation: {
              payload: {
                approval_request: { tool_name: string; risk_level: string; arguments: unknown };
              };
            };
          }
        ).toolConfirmation.payload.approval_request;
        transcript.push(
          `confirmation asked: ${request.tool_name} needs approval (${request.risk_level} risk) — nothing ran yet`,
        );
        transcript.push(
          `host: ${confirmed ? 'approves' : 'rejects'} ${JSON.stringify(request.arguments)}`,
        );
        return {
          functionResponse: {
            id: gate.id,
            name: REQUEST_CONFIRMATION_FUNCTION_CALL_NAME,
            response: { confirmed, ...(confirmed ? {} : { payload: { reason: 'not now' } }) },
          },
        };
      });
      gates = await run({ role: 'user', parts });
    }
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
