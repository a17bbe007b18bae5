import type { Tool, ToolGateway, ToolProgressEvent } from '@ksadk/core';
import { checkOptions } from '@ksadk/core/adapter';
import { KsadkAdkTool } from './ksadk-adk-tool.js';

/** Options for {@link toAdkTools}. */
export interface AdkToolsOptions {
  /** The gateway every call goes through. */
  gateway: ToolGateway;
  /**
   * Progress of long calls (an MCP server's progress notifications; `callId` is ADK's function
   * call id), for a progress bar. ADK has no way for a running tool to add events to the turn, so
   * progress comes through this callback; it never reaches the model.
   */
  onProgress?: (event: ToolProgressEvent) => void;
}

/**
 * Converts KsADK tools into `@google/adk` tools for an `LlmAgent`, in the given order.
 * Declarations use `parametersJsonSchema`; a gated call asks for ADK tool confirmation
 * (`adk_request_confirmation`), and runs once after the host confirms.
 *
 * @example
 * ```ts
 * const agent = new LlmAgent({ name: 'assistant', model, tools: toAdkTools([readNote, writeNote], { gateway }) });
 * ```
 */
export function toAdkTools(tools: readonly Tool[], options: AdkToolsOptions): KsadkAdkTool[] {
  checkOptions(options, { gateway: true, onProgress: true }, 'toAdkTools()');
  return tools.map(
    (tool) =>
      new KsadkAdkTool(tool, options.gateway, {
        ...(options.onProgress ? { onProgress: options.onProgress } : {}),
      }),
  );
}
