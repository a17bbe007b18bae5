import {
  DatabaseSessionService,
  LlmAgent,
  REQUEST_CONFIRMATION_FUNCTION_CALL_NAME,
  Runner,
} from '@google/adk';
import type { Content, FunctionCall, FunctionResponse } from '@google/genai';
import { toAdkTools } from '@ksadk/adk';
import { ScriptedLlm } from '@ksadk/adk/testing';
import { INVOICE_ARGS } from '../invoice-tool.js';
import {
  errorTypeOf,
  type FrameworkStory,
  type InstanceContext,
  loadPause,
  savePause,
} from './story.js';

const APP = 'invoices';
const USER = 'alice';

/** The runner of one process: KsADK tools, a scripted model, sessions in PostgreSQL. */
function runnerFor(context: InstanceContext, turns: ConstructorParameters<typeof ScriptedLlm>[0]) {
  const agent = new LlmAgent({
    name: 'billing',
    model: new ScriptedLlm(turns),
    tools: toAdkTools([context.tool], { gateway: context.gateway }),
  });
  const sessionService = new DatabaseSessionService(
    context.urls.adkSessionsUrl || context.urls.postgresUrl,
  );
  return { runner: new Runner({ agent, appName: APP, sessionService }), sessionService };
}

async function collect(events: AsyncIterable<{ content?: Content }>): Promise<Content[]> {
  const contents: Content[] = [];
  for await (const event of events) if (event.content) contents.push(event.content);
  return contents;
}

const parts = (contents: Content[]) => contents.flatMap((content) => content.parts ?? []);

/** ADK: the pause is a tool confirmation in a session kept in PostgreSQL; any process answers it. */
export const adkStory: FrameworkStory = {
  async pause(context) {
    const { runner, sessionService } = runnerFor(context, [
      { toolCalls: [{ name: 'send_invoice', args: INVOICE_ARGS }] },
    ]);
    await sessionService.createSession({ appName: APP, userId: USER, sessionId: context.runId });
    const contents = await collect(
      runner.runAsync({
        userId: USER,
        sessionId: context.runId,
        newMessage: { role: 'user', parts: [{ text: 'Invoice ACME for 1200 EUR.' }] },
      }),
    );
    const confirmation = parts(contents)
      .map((part) => part.functionCall)
      .find((call): call is FunctionCall => call?.name === REQUEST_CONFIRMATION_FUNCTION_CALL_NAME);
    const payload = (
      confirmation?.args as {
        toolConfirmation?: { payload?: { approval_request?: { id: string } } };
      }
    )?.toolConfirmation?.payload;
    if (!confirmation?.id || !payload?.approval_request)
      throw new Error('expected a tool confirmation');
    savePause(context, { confirmationId: confirmation.id });
    return payload.approval_request.id;
  },
  async resume(context) {
    const { confirmationId } = loadPause<{ confirmationId: string }>(context);
    const { runner } = runnerFor(context, ['The invoice is on its way.']);
    const contents = await collect(
      runner.runAsync({
        userId: USER,
        sessionId: context.runId,
        newMessage: {
          role: 'user',
          parts: [
            {
              functionResponse: {
                id: confirmationId,
                name: REQUEST_CONFIRMATION_FUNCTION_CALL_NAME,
                response: { confirmed: true },
              },
            },
          ],
        },
      }),
    );
    const toolResponse = parts(contents)
      .map((part) => part.functionResponse)
      .filter((response): response is FunctionResponse => response?.name === 'send_invoice')
      .at(-1);
    const text = parts(contents)
      .map((part) => part.text)
      .filter(Boolean)
      .join('');
    // ADK answers a confirmation it already handled without calling the tool again.
    return {
      output: text,
      toolErrorType: toolResponse ? errorTypeOf(toolResponse.response) : 'not_called',
    };
  },
};
