import { z } from 'zod';
import { gatewayFailure } from '../gateway/results.js';
import { defineTool } from '../tool/define-tool.js';
import { type HumanInputRequest, inputRequiredResult } from '../tool/human-input.js';
import { PAUSED } from '../tool/paused.js';
import type { Tool } from '../tool/tool.js';

/** A booking made by {@link createQuestionTool}'s tool. */
export interface QuestionToolBooking {
  readonly when: string;
  readonly name: unknown;
}

/**
 * A tool that asks the human a question mid-call (through `context.askHuman`, as an MCP
 * elicitation does) before its side effect: `book_table({ when })` asks "Whose name is the booking
 * under?", pauses when the framework pauses, and books once with the answer (into `bookings`).
 * High risk, so the gateway asks for approval first in `risk` mode. For testing each adapter's
 * pause for questions.
 *
 * @example
 * ```ts
 * const { tool, bookings } = createQuestionTool();
 * await gateway.invoke(tool, { when: '8pm' }, { askHuman: () => ({ action: 'accept', content: { name: 'Ada' } }) });
 * ```
 */
export function createQuestionTool(bookings: QuestionToolBooking[] = []): {
  tool: Tool;
  bookings: QuestionToolBooking[];
} {
  const tool = defineTool({
    name: 'book_table',
    description: 'Books a table; asks the user whose name it is under.',
    input: z.object({ when: z.string() }),
    policy: { riskLevel: 'high', sideEffects: ['booking'] },
    execute: async ({ when }, context) => {
      const request: HumanInputRequest = {
        type: 'ksadk_input',
        tool_call_id: context.callId,
        tool_name: context.toolName,
        source: 'test',
        message: 'Whose name is the booking under?',
        requested_schema: {
          type: 'object',
          properties: { name: { type: 'string' } },
          required: ['name'],
        },
        request_key: 'name?',
      };
      const answer = await context.askHuman(request);
      if (answer === PAUSED) return inputRequiredResult(request);
      if (answer.action !== 'accept') return gatewayFailure('input_declined', answer.action);
      bookings.push({ when, name: answer.content['name'] });
      return { ok: true, booked: answer.content['name'] };
    },
  });
  return { tool, bookings };
}
