import { createKsadkAgent } from '@ksadk/langgraph';
import { ScriptedChatModel } from '@ksadk/langgraph/testing';
import { ToolMessage } from '@langchain/core/messages';
import { Command } from '@langchain/langgraph';
import { PostgresSaver } from '@langchain/langgraph-checkpoint-postgres';
import { INVOICE_ARGS } from '../invoice-tool.js';
import {
  errorTypeOf,
  type FrameworkStory,
  type InstanceContext,
  loadPause,
  savePause,
} from './story.js';

/** The agent of one process: KsADK tools, a scripted model, checkpoints in PostgreSQL. */
async function agentFor(
  context: InstanceContext,
  turns: ConstructorParameters<typeof ScriptedChatModel>[0],
) {
  const checkpointer = PostgresSaver.fromConnString(context.urls.postgresUrl, {
    schema: `${context.namespace}_checkpoints`,
  });
  await checkpointer.setup();
  const ksadk = await createKsadkAgent({
    model: new ScriptedChatModel(turns),
    tools: [context.tool],
    gateway: context.gateway,
    checkpointer,
    environment: false,
  });
  return {
    agent: ksadk.agent,
    close: async () => {
      await ksadk.close();
      await checkpointer.end();
    },
  };
}

/** LangGraph: the pause is the thread's checkpoint in PostgreSQL; any process resumes it. */
export const langGraphStory: FrameworkStory = {
  async pause(context) {
    const { agent, close } = await agentFor(context, [
      { toolCalls: [{ name: 'send_invoice', args: INVOICE_ARGS }] },
    ]);
    try {
      const config = { configurable: { thread_id: context.runId } };
      const result = await agent.invoke(
        { messages: [{ role: 'user', content: 'Invoice ACME for 1200 EUR.' }] },
        config,
      );
      const pause = (
        result as { __interrupt__?: { value?: { approval_request?: { id: string } } }[] }
      ).__interrupt__?.[0]?.value;
      if (!pause?.approval_request) throw new Error('expected the graph to pause for approval');
      // The paused checkpoint: resuming from it (rather than the thread's latest) replays the pause.
      const state = (await agent.getState(config)) as unknown as {
        config: { configurable?: Record<string, unknown> };
      };
      savePause(context, { checkpointId: state.config.configurable?.['checkpoint_id'] });
      return pause.approval_request.id;
    } finally {
      await close();
    }
  },
  async resume(context) {
    const { checkpointId } = loadPause<{ checkpointId: string }>(context);
    const { agent, close } = await agentFor(context, ['The invoice is on its way.']);
    try {
      const result = await agent.invoke(
        new Command({ resume: { decisions: [{ type: 'approve' }] } }),
        {
          configurable: { thread_id: context.runId, checkpoint_id: checkpointId },
        },
      );
      const messages = (result as { messages: unknown[] }).messages;
      const toolMessage = messages.filter((message) => message instanceof ToolMessage).at(-1);
      const last = messages.at(-1) as { content?: unknown } | undefined;
      return {
        output: typeof last?.content === 'string' ? last.content : '',
        toolErrorType: errorTypeOf(toolMessage?.content),
      };
    } finally {
      await close();
    }
  },
};
