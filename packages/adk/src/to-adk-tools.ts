import { checkOptions, type Tool, type ToolGateway } from '@ksadk/core';
import { KsadkAdkTool } from './ksadk-adk-tool.js';

/** Options for {@link toAdkTools}. */
export interface AdkToolsOptions {
  /** The gateway every call goes through. */
  gateway: ToolGateway;
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
  checkOptions(options, ['gateway'], 'toAdkTools()');
  return tools.map((tool) => new KsadkAdkTool(tool, options.gateway));
}
