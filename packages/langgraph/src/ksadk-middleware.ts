import { KsadkError } from '@ksadk/core';
import { ToolMessage } from '@langchain/core/messages';
import type { AgentMiddleware } from 'langchain';

/**
 * `createAgent` middleware that makes KsADK configuration errors fatal instead of feeding
 * them back to the model as tool messages — above all a gated call in an agent without a
 * checkpointer, which cannot pause for a decision. Interrupts pass through untouched; other
 * tool errors keep LangChain's default behaviour (an error tool message the model can react to).
 *
 * Asynchronous because `langchain` is loaded on first use (importing `@ksadk/langgraph` stays
 * cheap for code that only converts tools).
 *
 * @example
 * ```ts
 * const agent = createAgent({ model, tools: toLangGraphTools(tools, { gateway }), middleware: [await createKsadkMiddleware()] });
 * ```
 */
export async function createKsadkMiddleware(): Promise<AgentMiddleware> {
  const { createMiddleware } = await import('langchain');
  return createMiddleware({
    name: 'KsadkMiddleware',
    wrapToolCall: async (request, handler) => {
      try {
        return await handler(request);
      } catch (error) {
        // Interrupts (approval pauses) and other graph signals must reach LangGraph untouched.
        if (
          KsadkError.isInstance(error) ||
          (error as { is_bubble_up?: unknown } | undefined)?.is_bubble_up === true
        )
          throw error;
        return new ToolMessage({
          content: `${error}\n Please fix your mistakes.`,
          tool_call_id: request.toolCall.id ?? '',
          name: request.toolCall.name,
          status: 'error',
        });
      }
    },
  });
}
