import type { Tool as KsadkTool, ToolGateway } from '@ksadk/core';
import type { ModelMessage, Tool, ToolSet } from 'ai';
import { deniedCalls } from './approval-responses.js';

/** What an AI SDK tool made by `toAiSdkTools` stands for. */
interface Registered {
  readonly target: KsadkTool;
  readonly gateway: ToolGateway;
}

const registered = new WeakMap<Tool, Registered>();
/** Every tool made for a gateway, by name: a merged ToolSet's tools settle each other's denials. */
const byGateway = new WeakMap<ToolGateway, Map<string, KsadkTool>>();
/** The denials settled already, per messages array: each is looked up once per request. */
const settled = new WeakMap<readonly ModelMessage[], Set<string>>();
/** The newest denials settled per request, at most: a huge history costs a bounded amount. */
const MAX_DENIALS_PER_REQUEST = 100;

/** Remembers which KsADK tool and gateway an AI SDK tool stands for. */
export function register(tool: Tool, target: KsadkTool, gateway: ToolGateway): Tool {
  registered.set(tool, { target, gateway });
  let named = byGateway.get(gateway);
  if (!named) {
    named = new Map();
    byGateway.set(gateway, named);
  }
  named.set(target.name, target);
  return tool;
}

/** What a tool made by `toAiSdkTools` stands for, or `undefined` for any other tool. */
export function registeredOf(tool: Tool): Registered | undefined {
  return registered.get(tool);
}

/** The tools made for `gateway`, by name (the newest of a name), as `settleDenials` looks them up. */
export function toolsOf(gateway: ToolGateway): (toolName: string) => Registered | undefined {
  return (toolName) => {
    const target = byGateway.get(gateway)?.get(toolName);
    return target ? { target, gateway } : undefined;
  };
}

/**
 * Rejects the gateway's requests for the calls the client denied in `messages`, for the tools
 * `lookup` knows: the SDK answers such a call `execution-denied` without asking the tool, so its
 * request would otherwise stay open, and a later approval of the same call could still run it.
 * Only a request made for exactly that call (id, arguments, account, session) is touched.
 */
export async function settleDenials(
  lookup: (toolName: string) => Registered | undefined,
  messages: readonly ModelMessage[],
): Promise<void> {
  let done = settled.get(messages);
  if (!done) {
    done = new Set();
    settled.set(messages, done);
  }
  for (const denied of deniedCalls(messages).slice(-MAX_DENIALS_PER_REQUEST)) {
    if (done.has(denied.toolCallId)) continue;
    const found = lookup(denied.toolName);
    if (!found) continue;
    done.add(denied.toolCallId);
    const pending = await found.gateway.pendingApproval(found.target, denied.input, {
      callId: denied.toolCallId,
      create: false,
    });
    if (!pending) continue;
    await found.gateway
      .reject(pending.approval_request.id, { reason: denied.reason ?? 'The user denied it.' })
      .catch(() => undefined);
  }
}

/**
 * Makes the client's denials in `messages` final at once: call it at the start of each chat
 * request, before `streamText` / `generateText`, with the tool set you pass them (a merged one
 * too). Without it a denial is settled when a tool of the set next runs, or when its request
 * expires — until then the gateway's request for the denied call is still open, and only an
 * approval of exactly that call could run it.
 *
 * @example
 * ```ts
 * await settleApprovalResponses(tools, messages);
 * const result = streamText({ model, tools, messages });
 * ```
 */
export function settleApprovalResponses(
  tools: ToolSet,
  messages: readonly ModelMessage[],
): Promise<void> {
  return settleDenials((name) => {
    const tool = Object.hasOwn(tools, name) ? (tools[name] as Tool) : undefined;
    return tool ? registered.get(tool) : undefined;
  }, messages);
}
