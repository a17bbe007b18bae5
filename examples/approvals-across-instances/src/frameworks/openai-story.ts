import { createToolLoop, type ToolLoopState } from '@ksadk/openai';
import { createScriptedOpenAIFetch } from '@ksadk/openai/testing';
import OpenAI from 'openai';
import { INVOICE_ARGS } from '../invoice-tool.js';
import {
  errorTypeOf,
  type FrameworkStory,
  type InstanceContext,
  loadPause,
  savePause,
} from './story.js';

function loopFor(context: InstanceContext, turns: Parameters<typeof createScriptedOpenAIFetch>[0]) {
  const client = new OpenAI({
    apiKey: 'offline',
    baseURL: 'http://scripted.invalid/v1',
    fetch: createScriptedOpenAIFetch(turns).fetch,
    maxRetries: 0,
  });
  return createToolLoop(client, {
    model: 'scripted',
    tools: [context.tool],
    gateway: context.gateway,
  });
}

/** OpenAI function calling: the loop's pause is saved as JSON and resumed by any process. */
export const openAIStory: FrameworkStory = {
  async pause(context) {
    const loop = loopFor(context, [{ toolCalls: [{ name: 'send_invoice', args: INVOICE_ARGS }] }]);
    const result = await loop.run('Invoice ACME for 1200 EUR.');
    if (result.status !== 'needs_approval')
      throw new Error(`expected a pause, got ${result.status}`);
    const pending = result.pending[0];
    if (pending?.kind !== 'approval') throw new Error('expected a pending approval');
    savePause(context, { state: result.toJSON(), callId: pending.callId });
    return pending.approvalRequest.id;
  },
  async resume(context) {
    const { state, callId } = loadPause<{ state: ToolLoopState; callId: string }>(context);
    const loop = loopFor(context, ['The invoice is on its way.']);
    const result = await loop.resume(state, { [callId]: { type: 'approve' } });
    if (result.status !== 'completed') throw new Error(`expected completion, got ${result.status}`);
    const toolOutput = result.messages
      .map(
        (message) =>
          message as { role?: string; type?: string; content?: unknown; output?: unknown },
      )
      .find((message) => message.role === 'tool' || message.type === 'function_call_output');
    return {
      output: result.output,
      toolErrorType: errorTypeOf(toolOutput?.content ?? toolOutput?.output),
    };
  },
};
