import type { HumanInputRequest } from '@ksadk/core';
import { type HumanInputAnswer, PAUSED } from '@ksadk/core/adapter';
import { ElicitResultSchema } from '@modelcontextprotocol/sdk/types.js';
import type { McpRequestContext } from './request-context.js';

/**
 * A question a running tool asks mid-call (an upstream MCP server's elicitation), put to this
 * server's client through its own elicitation; without it, the call answers `input_required`.
 */
export async function askOverMcp(
  context: McpRequestContext,
  question: HumanInputRequest,
): Promise<HumanInputAnswer | typeof PAUSED> {
  if (!context.clientCapabilities()?.elicitation) return PAUSED;
  try {
    const answer = await context.sendRequest(
      {
        method: 'elicitation/create',
        params: {
          mode: 'form',
          message: `${question.source} asks (in ${question.tool_name}): ${question.message}`,
          requestedSchema: question.requested_schema as Record<string, unknown>,
        },
      },
      ElicitResultSchema,
      { signal: context.signal, timeout: context.approvals.waitMs },
    );
    return answer.action === 'accept'
      ? { action: 'accept', content: (answer.content ?? {}) as Record<string, unknown> }
      : { action: answer.action };
  } catch {
    return { action: 'cancel' };
  }
}
