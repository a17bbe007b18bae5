import type { ToolSource } from '../../catalog/assemble-agent-tools.js';
import type { LoadAgentToolsOptions } from '../../catalog/load-agent-tools.js';
import type { ToolGateway } from '../../gateway/gateway-types.js';
import type { ToolProgressEvent } from '../../gateway/run-with-timeout.js';
import type { Tool } from '../../tool/tool.js';

/** One tool call the kit has the scripted model make: always with its id. */
export interface ConformanceCall {
  readonly id: string;
  readonly name: string;
  readonly args: Record<string, unknown> | string;
}

/**
 * A host's answer to a paused call, in the kit's terms: approve or reject an approval request, or
 * answer a question the call asked mid-way with `{ answer: content }`.
 */
export type AdapterDecision =
  | 'approve'
  | 'reject'
  | { readonly answer: Readonly<Record<string, unknown>> }
  | { readonly credential: { readonly apiKey: string } };

/** What one run of the framework came to, as the model and the host see it. */
export interface AdapterTurn {
  /**
   * What the model was given for each call that was answered, by call id: the result as the
   * framework hands it to the model (an object, text or content parts; the kit reads it as JSON).
   */
  readonly results: Readonly<Record<string, unknown>>;
  /** The calls that paused for a human's approval, by call id. */
  readonly paused: readonly string[];
  /** The calls that paused for a question they asked mid-way (an MCP elicitation), by call id. */
  readonly asked?: readonly string[];
  /** The calls that paused for the user's credential (a sign-in or a key), by call id. */
  readonly signIns?: readonly string[];
  /**
   * The host's decisions for the paused calls (by call id), in the framework's own idiom; the
   * answer is the next turn. Calling it twice with the same decisions is a replay of the pause.
   */
  resume(decisions: Readonly<Record<string, AdapterDecision>>): Promise<AdapterTurn>;
}

/** What an adapter's loader loaded, for the kit. */
export interface AdapterLoad {
  /** The tools as core assembled them, for `run`. */
  readonly tools: readonly Tool[];
  /** Where each tool came from (the load's `assembly.sources`). */
  readonly sources: Readonly<Record<string, ToolSource>>;
  /** The names the framework got, in the order it got them (one per tool). */
  readonly names: readonly string[];
  /** The load's `close`. */
  close(): Promise<void>;
}

/**
 * How the conformance kit drives one adapter: the real framework, with a scripted model that makes
 * the kit's calls in one turn and then answers with text.
 */
export interface AdapterDriver {
  /** The adapter's name, for the failures. */
  readonly name: string;
  /**
   * How the framework takes a question asked mid-call: `pause` (the run pauses, the host answers,
   * the call goes on) or `decline`, for a framework with no channel for it (the AI SDK): the call
   * is told the human declined, and says so to the model. @default 'pause'
   */
  readonly questions?: 'pause' | 'decline';
  /**
   * How the framework takes a call that needs the user's credential: `pause` (the run pauses for
   * the host, who provides it, and the call goes on) or `result`, for a framework that cannot
   * pause inside a call (the AI SDK): the call answers `credential_required` with its request, the
   * host provides the credential (`gateway.provideCredential`) and the model calls again — the
   * driver's `resume` does both, with the same call id. @default 'pause'
   */
  readonly credentials?: 'pause' | 'result';
  /**
   * Runs one model turn making `calls` with `tools` through `gateway`, handing the progress of
   * long calls to `onProgress` through the adapter's own progress channel (its `onProgress`
   * option, LangGraph's custom stream…).
   */
  run(input: {
    readonly tools: readonly Tool[];
    readonly gateway: ToolGateway;
    readonly calls: readonly ConformanceCall[];
    readonly onProgress: (event: ToolProgressEvent) => void;
  }): Promise<AdapterTurn>;
  /**
   * Loads tools with the adapter's own loader (`loadOpenAITools`, `loadAiSdkTools`…) and these
   * options, environment defaults included, and gives what the framework got.
   */
  load(options: LoadAgentToolsOptions): Promise<AdapterLoad>;
}
