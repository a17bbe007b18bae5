import { type ServedKsadkConsole, serveKsadkConsole } from '@ksadk/console';
import { createToolGateway, type ToolGateway, waitForApprovalDecision } from '@ksadk/core';
import { loadMcpToolsets } from '@ksadk/core/mcp';
import { createSandboxBackend } from '@ksadk/core/sandbox';
import { createSkillLibrary } from '@ksadk/core/skills';
import { createToolLoop, loadOpenAITools } from '@ksadk/openai';
import { createScriptedOpenAIFetch } from '@ksadk/openai/testing';
import OpenAI from 'openai';
import { describeToolResult, type ExampleReport, startScenario } from './scenario.js';

/** Whether an isolated sandbox (bubblewrap: Linux with `bwrap` installed) can run code here. */
function canIsolate(): boolean {
  try {
    createSandboxBackend('bubblewrap');
    return true;
  } catch {
    return false;
  }
}

/**
 * The conversation an offline run plays: read the notes, check the weather, edit the notes, run
 * the packing-list skill, count the packing items with run_code (when a sandbox can isolate it),
 * answer.
 */
function offlineModel(withCode: boolean) {
  const countItems = {
    toolCalls: [
      {
        name: 'run_code',
        args: {
          language: 'javascript',
          code: "const notes = require('fs').readFileSync('notes/trip.md', 'utf8');\nconsole.log(notes.split('\\n').filter((line) => line.startsWith('- ')).length + ' packing line(s)');",
        },
      },
    ],
  };
  return createScriptedOpenAIFetch([
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
    ...(withCode ? [countItems] : []),
    'Oslo looks rainy (9°C), so I added an umbrella to your packing list and wrote a full packing list.',
  ]);
}

/** Decisions made in the browser: the example serves the console and waits for each one there. */
export interface ExampleConsoleOptions {
  /** Told the console's address (with its token) once it listens. */
  onReady?: (url: string) => void;
  /** How long each gated call waits for a decision in the console. @default 5 minutes */
  waitMs?: number;
  /** Told the run's report as soon as the run is over, before `keepOpen`. */
  onRunEnd?: (report: ExampleReport) => void;
  /** After the run, wait for this before closing the console (the demo keeps it open until Ctrl-C). */
  keepOpen?: Promise<unknown>;
  /** @default 0 (a free port) */
  port?: number;
}

/** The decision for a paused call: the host's own, or the one someone makes in the console. */
async function decisionFor(
  gateway: ToolGateway,
  requestId: string,
  options: { approve?: boolean; console?: ExampleConsoleOptions },
): Promise<unknown> {
  if (!options.console) return options.approve === false ? 'reject' : 'approve';
  const decided = await waitForApprovalDecision(gateway, requestId, {
    waitMs: options.console.waitMs ?? 300_000,
  });
  // Nobody decided in time: the call is rejected, and the model is told.
  return typeof decided === 'string'
    ? { type: 'reject', reason: `nobody decided (${decided})` }
    : decided;
}

/**
 * Runs the example: an OpenAI function-calling loop over KsADK tools (memory → skills →
 * workspace → MCP), with the host approving gated calls — or, with `console`, a person deciding
 * them in the KsADK console in the browser. Offline with a scripted model unless OPENAI_API_KEY is
 * set (OPENAI_BASE_URL and OPENAI_MODEL are honoured).
 */
export async function runOpenAIExample(
  options: { live?: boolean; approve?: boolean; console?: ExampleConsoleOptions } = {},
): Promise<ExampleReport> {
  const live = options.live ?? Boolean(process.env['OPENAI_API_KEY']);
  const scenario = await startScenario();
  // run_code only on an isolated sandbox: bubblewrap, when this machine has it.
  const withCode = canIsolate();
  // The MCP servers, loaded here so the console can show them too.
  const mcp = await loadMcpToolsets(scenario.mcpServers);
  const { tools, gateway, assembly, close } = await loadOpenAITools({
    // Records keep each call's arguments: the console's call pages show them.
    gateway: createToolGateway({ approvalMode: 'risk', executions: { recordArguments: true } }),
    memory: { memory: scenario.memory },
    skills: await scenario.skills(),
    builtins: { include: withCode ? 'workspace,run_code' : 'workspace' },
    catalog: {
      workspace: { root: scenario.root },
      sandbox: withCode ? { backend: 'bubblewrap' } : false,
    },
    mcp,
  });
  let served: ServedKsadkConsole | undefined;
  if (options.console) {
    served = await serveKsadkConsole({
      gateway,
      tools,
      skills: createSkillLibrary({ localDir: scenario.skillsDir }),
      mcpServers: [...mcp.toolsets, ...mcp.unavailable],
      port: options.console.port ?? 0,
    });
    options.console.onReady?.(served.url);
  }
  const client = live
    ? new OpenAI()
    : new OpenAI({
        apiKey: 'offline',
        baseURL: 'http://scripted.invalid/v1',
        fetch: offlineModel(withCode).fetch,
        maxRetries: 0,
      });
  const loop = createToolLoop(client, {
    model: live ? (process.env['OPENAI_MODEL'] ?? 'gpt-4.1-mini') : 'scripted',
    tools,
    gateway,
    instructions: [
      "You help plan trips. The user's notes are in the workspace (notes/trip.md).",
      assembly.instructions,
    ]
      .filter(Boolean)
      .join('\n\n'),
  });
  const transcript: string[] = ['user: Check the weather in Oslo and update my trip notes.'];
  let approvalsAsked = 0;
  let shown = 0;
  /** Adds the conversation's new tool calls and results to the transcript. */
  const flush = (messages: readonly unknown[]): void => {
    for (const message of messages.slice(shown)) {
      const m = message as {
        role?: string;
        content?: unknown;
        tool_calls?: { function: { name: string; arguments: string } }[];
      };
      if (m.role === 'assistant')
        for (const call of m.tool_calls ?? [])
          transcript.push(`model calls ${call.function.name} ${call.function.arguments}`);
      if (m.role === 'tool') transcript.push(describeToolResult(String(m.content)));
    }
    shown = messages.length;
  };
  try {
    let result = await loop.run(
      'Check the weather in Oslo for my trip and update notes/trip.md with anything I should pack.',
    );
    while (result.status === 'needs_approval') {
      flush(result.messages);
      const decisions: Record<string, unknown> = {};
      for (const pending of result.pending) {
        if (pending.kind !== 'approval') continue; // this story asks no questions mid-call
        approvalsAsked += 1;
        transcript.push(
          `gateway: ${pending.toolName} needs approval (${pending.approvalRequest.risk_level} risk) — nothing ran yet`,
        );
        const decision = await decisionFor(gateway, pending.approvalRequest.id, options);
        const verb =
          decision === 'approve' || (decision as { type?: string }).type === 'approve'
            ? 'approves'
            : 'rejects';
        transcript.push(
          `${options.console ? 'console' : 'host'}: ${verb} ${JSON.stringify(pending.approvalRequest.arguments)}`,
        );
        decisions[pending.callId] = decision;
      }
      result = await result.resume(decisions);
    }
    flush(result.messages);
    const answer = result.status === 'completed' ? result.output : `(stopped: ${result.status})`;
    transcript.push(`assistant: ${answer}`);
    const report: ExampleReport = {
      live,
      ranCode: withCode,
      toolOrder: tools.map((tool) => tool.name),
      transcript,
      approvalsAsked,
      notes: await scenario.readNotes(),
      answer,
    };
    options.console?.onRunEnd?.(report);
    return report;
  } finally {
    if (served) {
      await options.console?.keepOpen;
      await served.close();
    }
    await close();
    await mcp.close();
    await scenario.stop();
  }
}
