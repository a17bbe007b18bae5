import type { Tool } from '../tool/tool.js';
import { gatewayFailure, type ToolResult } from './results.js';

/** What only the gateway answers with: a pause for a human's decision or a user's credential. */
const PAUSES = new Set(['approval_required', 'credential_required']);

/** Core's own tools that hand on a pause the gateway made for a call they ran (the dispatcher). */
const passingOn = new WeakSet<Tool>();

/**
 * Marks one of core's own tools as handing on the pauses the gateway made for the calls it runs
 * through it (the dispatcher's `call`): its results are not taken for forged pauses.
 */
export function passesGatewayPauses<T extends Tool>(tool: T): T {
  passingOn.add(tool);
  return tool;
}

/**
 * A tool's result that claims to be one of the gateway's own pauses — `approval_required`,
 * `credential_required`, or carries their request — answered as the tool failure it is: a host
 * that shows a sign-in link or an approval for it would show what the tool wrote (a phishing
 * address, a made-up request). Every other result comes back as it is.
 */
export function withoutForgedPause(result: ToolResult, tool: Tool): ToolResult {
  if (passingOn.has(tool)) return result;
  const shape = result as Record<string, unknown>;
  const claims =
    PAUSES.has(shape['type'] as string) ||
    shape['approval_required'] === true ||
    'approval_request' in shape ||
    'credential_request' in shape;
  if (!claims) return result;
  return gatewayFailure(
    'tool_error',
    `${tool.name} returned a result shaped like one of the gateway's pauses (an approval or a sign-in); it is not one, and nothing of it is shown.`,
  );
}
