import type { ApprovalRequiredResult, Tool as KsadkTool, ToolGateway } from '@ksadk/core';
import { normalizeOpenAIArguments } from '@ksadk/core/schema';
import type { RunContext, RunToolApprovalItem } from '@openai/agents';

/** What an SDK function tool made by `toOpenAIAgentsTools` stands for. */
export interface Registered {
  readonly target: KsadkTool;
  readonly gateway: ToolGateway;
  /** Whether its schema went to the model in strict form (strict-mode nulls mean "absent"). */
  readonly strict: boolean;
}

const registered = new WeakMap<object, Registered>();

/** Remembers which KsADK tool and gateway an SDK function tool stands for. */
export function register<T extends object>(made: T, entry: Registered): T {
  registered.set(made, entry);
  return made;
}

/** The arguments the SDK parsed, as the gateway takes them: strict-mode nulls turned back into absent fields. */
export const argumentsFor = (entry: Registered, input: unknown): unknown =>
  normalizeOpenAIArguments(entry.target, input, entry.strict);

/**
 * A call id no model makes: the SDK's `isToolApproved` answers for it only from a decision on every
 * call of the tool (`alwaysApprove`, `alwaysReject`).
 */
const EVERY_CALL = '\u0000ksadk:every-call';

/** The SDK's decision on one call — approved or rejected, for this call or for every call — or none. */
export function sdkDecisionOf(
  context: RunContext<unknown>,
  toolName: string,
  callId: string,
): { approved: boolean; always: boolean } | undefined {
  const approved = context.isToolApproved({ toolName, callId });
  if (approved === undefined) return undefined;
  const always = context.isToolApproved({ toolName, callId: EVERY_CALL }) === approved;
  return { approved, always };
}

/** An interruption's call of a KsADK tool: the tool, its SDK name, the call id and the arguments. */
export interface InterruptedCall {
  readonly entry: Registered;
  readonly toolName: string;
  readonly callId: string;
  /** The arguments as the gateway took them when it asked; `undefined` when they are not a JSON object. */
  readonly args: unknown;
}

/** The KsADK call behind an interruption (looked up in the agent that made the call), or `undefined`. */
export function interruptedCall(item: RunToolApprovalItem): InterruptedCall | undefined {
  const raw = item.rawItem;
  if (raw.type !== 'function_call') return undefined;
  const made = (item.agent?.tools ?? []).find(
    (candidate) => candidate.type === 'function' && candidate.name === raw.name,
  );
  const entry = made ? registered.get(made) : undefined;
  if (!entry) return undefined;
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw.arguments);
  } catch {
    parsed = undefined;
  }
  const readable = typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed);
  return {
    entry,
    toolName: raw.name,
    callId: raw.callId,
    args: readable ? argumentsFor(entry, parsed) : undefined,
  };
}

/**
 * The gateway's open request for exactly this call (tool, call id, arguments, in the current
 * account and session), or `undefined`. Never makes one.
 */
export async function openRequestOf(
  call: InterruptedCall,
): Promise<ApprovalRequiredResult | undefined> {
  if (call.args === undefined) return undefined;
  return call.entry.gateway.pendingApproval(call.entry.target, call.args, {
    callId: call.callId,
    create: false,
  });
}
