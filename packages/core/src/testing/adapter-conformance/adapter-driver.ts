import type { ToolGateway } from '../../gateway/gateway-types.js';
import type { ToolProgressEvent } from '../../gateway/run-with-timeout.js';
import type { Tool } from '../../tool/tool.js';

/** One tool call the kit has the scripted model make: always with its id. */
export interface ConformanceCall {
  readonly id: string;
  readonly name: string;
  readonly args: Record<string, unknown> | string;
}

/** What one run of the framework came to, as the model and the host see it. */
export interface AdapterTurn {
  /**
   * What the model was given for each call that was answered, by call id: the result as the
   * framework hands it to the model (an object, text or content parts; the kit reads it as JSON).
   */
  readonly results: Readonly<Record<string, unknown>>;
  /** The calls that paused for a human's approval, by call id. */
  readonly paused: readonly string[];
  /**
   * The host's decisions for the paused calls (by call id), in the framework's own idiom; the
   * answer is the next turn. Calling it twice with the same decisions is a replay of the pause.
   */
  resume(decisions: Readonly<Record<string, 'approve' | 'reject'>>): Promise<AdapterTurn>;
}

/**
 * How the conformance kit drives one adapter: the real framework, with a scripted model that makes
 * the kit's calls in one turn and then answers with text.
 */
export interface AdapterDriver {
  /** The adapter's name, for the failures. */
  readonly name: string;
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
}
