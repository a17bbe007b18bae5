import { createToolGateway, type ToolGateway } from '@ksadk/core';
import { type PendingToolCall, runToolCalls, toOpenAITools } from '@ksadk/openai';
import OpenAI from 'openai';
import type { ChatCompletionMessageParam } from 'openai/resources/chat/completions';
import { demoScript, scriptedOpenAI } from './scripted-model.js';
import { createNotebook } from './tools.js';

/** What the demo did, for the transcript and the self-check. */
export interface DemoResult {
  transcript: string[];
  finalAnswer: string;
  writes: number;
  approvalsAsked: number;
  notes: Record<string, string>;
  live: boolean;
}

export interface DemoOptions {
  /** Decides each pending call; the demo's host approves everything by default. */
  decide?: (pending: PendingToolCall) => 'approve' | 'reject';
  /** Use this client (a real model) instead of the offline script. */
  client?: OpenAI;
  model?: string;
  gateway?: ToolGateway;
}

/** Runs one user request through an OpenAI tool loop whose every call goes through the gateway. */
export async function runDemo(options: DemoOptions = {}): Promise<DemoResult> {
  const live = options.client !== undefined;
  const client = options.client ?? scriptedOpenAI(demoScript());
  const model = options.model ?? 'scripted';
  const gateway = options.gateway ?? createToolGateway({ approvalMode: 'risk' });
  const notebook = createNotebook({ groceries: 'milk, eggs' });
  const tools = toOpenAITools(notebook.tools, { api: 'chat' });
  const transcript: string[] = [];
  let approvalsAsked = 0;

  const messages: ChatCompletionMessageParam[] = [
    { role: 'system', content: "You keep the user's notes. Read a note before changing it." },
    { role: 'user', content: 'Add coffee to my groceries note.' },
  ];
  transcript.push(`user: ${messages[1]!.content}`);

  for (let turn = 0; turn < 8; turn += 1) {
    const completion = await client.chat.completions.create({ model, messages, tools });
    const message = completion.choices[0]!.message;
    messages.push(message);
    if (!message.tool_calls?.length) {
      transcript.push(`assistant: ${message.content ?? ''}`);
      return {
        transcript,
        finalAnswer: message.content ?? '',
        writes: notebook.writeCount(),
        approvalsAsked,
        notes: Object.fromEntries(notebook.notes),
        live,
      };
    }
    let batch = await runToolCalls(message.tool_calls, { tools: notebook.tools, gateway });
    for (const call of message.tool_calls) {
      if (call.type === 'function')
        transcript.push(`model calls ${call.function.name} ${call.function.arguments}`);
    }
    while (!batch.done) {
      const decisions: Record<string, 'approve' | 'reject'> = {};
      for (const pending of batch.pending) {
        approvalsAsked += 1;
        const decision = options.decide?.(pending) ?? 'approve';
        transcript.push(
          `gateway: ${pending.toolName} needs approval (${pending.approvalRequest.risk_level} risk, ${pending.approvalRequest.side_effects.join(', ')}) — nothing ran yet`,
        );
        transcript.push(`host: ${decision}s ${pending.approvalRequest.id}`);
        decisions[pending.callId] = decision;
      }
      batch = await batch.resume(decisions);
    }
    for (const call of batch.calls)
      transcript.push(`tool ${call.toolName} → ${JSON.stringify(call.result)}`);
    messages.push(...batch.toolMessages());
  }
  throw new Error('The model did not finish within 8 turns.');
}

/** A real OpenAI(-compatible) client when OPENAI_API_KEY is set. */
export function liveClientFromEnv(): { client: OpenAI; model: string } | undefined {
  if (!process.env['OPENAI_API_KEY']) return undefined;
  return { client: new OpenAI(), model: process.env['OPENAI_MODEL'] ?? 'gpt-4.1-mini' };
}
