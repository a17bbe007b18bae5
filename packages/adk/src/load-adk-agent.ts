import { BaseTool, type LlmAgent } from '@google/adk';
import type { ToolGateway } from '@ksadk/core';
import {
  type AgentAssembly,
  type LoadAgentToolsOptions,
  loadAgentTools,
} from '@ksadk/core/catalog';
import { toAdkTools } from './to-adk-tools.js';

/**
 * Options for {@link loadAdkAgent}: core's `loadAgentTools` options — what to assemble, the
 * gateway, and whether sources default from the environment (they do unless `environment: false`).
 */
export type LoadAdkAgentOptions = LoadAgentToolsOptions;

/** What {@link loadAdkAgent} did. */
export interface AdkAgentLoad {
  readonly agent: LlmAgent;
  readonly assembly: AgentAssembly;
  readonly gateway: ToolGateway;
  /** Assembly warnings, plus tools left out because the agent already had the name. */
  readonly warnings: readonly string[];
  /** Releases MCP sessions. Call when the agent is retired, not after each run. */
  close(): Promise<void>;
}

type BeforeModel = (args: { request: { config?: { systemInstruction?: unknown } } }) => undefined;

/**
 * Loads KsADK tools into an `LlmAgent`, once, when it is created: the assembled tools (memory →
 * skills → built-ins → MCP → A2A) go after the agent's own tools, in order; a name the agent
 * already has wins and the clash is reported. The assembly's instructions (a skill manifest)
 * are added to the system instruction of every model call — after ADK has filled the agent's
 * own instruction from session state, so remote text is never treated as a state template.
 * MCP sessions stay open across `Runner` runs: the tools are plain `BaseTool`s, not toolsets
 * that the runner closes after each run.
 *
 * @example
 * ```ts
 * const agent = new LlmAgent({ name: 'assistant', model: 'gemini-2.5-flash', instruction: 'Help with notes.' });
 * const { close } = await loadAdkAgent(agent, { builtins: { profile: 'coding' }, mcp: servers });
 * ```
 */
export async function loadAdkAgent(
  agent: LlmAgent,
  options: LoadAdkAgentOptions = {},
): Promise<AdkAgentLoad> {
  const { assembly, gateway, instructions, ...load } = await loadAgentTools(options);
  const warnings = [...load.warnings];
  const taken = new Set(
    agent.tools
      .filter((tool): tool is BaseTool => tool instanceof BaseTool)
      .map((tool) => tool.name),
  );
  for (const tool of toAdkTools(load.tools, { gateway })) {
    if (taken.has(tool.name)) {
      warnings.push(`${tool.name} is left out: the agent already has a tool with that name`);
      continue;
    }
    taken.add(tool.name);
    agent.tools.push(tool);
  }
  if (instructions) {
    const text = instructions;
    const addInstructions: BeforeModel = ({ request }) => {
      request.config ??= {};
      const config = request.config;
      const current = config.systemInstruction as
        | string
        | { parts?: { text?: string }[] }
        | undefined;
      if (typeof current === 'object' && current !== null && Array.isArray(current.parts))
        current.parts.push({ text });
      else
        config.systemInstruction =
          typeof current === 'string' && current ? `${current}\n\n${text}` : text;
      return undefined;
    };
    const existing = agent.beforeModelCallback;
    const list = existing === undefined ? [] : Array.isArray(existing) ? existing : [existing];
    agent.beforeModelCallback = [addInstructions as never, ...list];
  }
  return { agent, assembly, gateway, warnings, close: load.close };
}
