import type { ToolGateway } from '@ksadk/core';
import {
  type AgentAssembly,
  type AgentToolsLoad,
  type LoadAgentToolsOptions,
  loadAgentTools,
} from '@ksadk/core/catalog';
import type { DynamicStructuredTool } from '@langchain/core/tools';
import type { BaseCheckpointSaver } from '@langchain/langgraph';
import { MemorySaver } from '@langchain/langgraph';
import type { AgentMiddleware, createAgent } from 'langchain';
import { createKsadkMiddleware } from './ksadk-middleware.js';
import { toLangGraphTools } from './to-langgraph-tools.js';

/**
 * Options for {@link loadLangGraphTools}: core's `loadAgentTools` options — what to assemble, the
 * gateway, and whether sources default from the environment (they do unless `environment: false`).
 */
export type LoadLangGraphToolsOptions = LoadAgentToolsOptions;

/** Assembled tools ready for LangGraph: core's load, with the tools converted. */
export interface LangGraphToolsLoad extends Omit<AgentToolsLoad, 'tools'> {
  /** LangChain tools in assembly order. */
  readonly tools: DynamicStructuredTool[];
}

/**
 * Assembles the agent's tools (own → memory → skills → built-ins → MCP → A2A) and converts
 * them for LangGraph. Call once when the agent loads; read `assembly.warnings`.
 *
 * @example
 * ```ts
 * const { tools, assembly, close } = await loadLangGraphTools({ builtins: { profile: 'coding' }, mcp: servers });
 * ```
 */
export async function loadLangGraphTools(
  options: LoadLangGraphToolsOptions = {},
): Promise<LangGraphToolsLoad> {
  const load = await loadAgentTools(options);
  return { ...load, tools: toLangGraphTools(load.tools, { gateway: load.gateway }) };
}

/** Options for {@link createKsadkAgent}. */
export interface CreateKsadkAgentOptions extends LoadLangGraphToolsOptions {
  /** A chat model with tool calling (or a `provider:model` string `createAgent` understands). */
  model: Parameters<typeof createAgent>[0]['model'];
  /** The agent's system prompt; the assembly's instructions are appended. */
  systemPrompt?: string;
  /** @default a `MemorySaver` (approvals need a checkpointer) */
  checkpointer?: BaseCheckpointSaver;
  /** More middleware, after KsADK's. */
  middleware?: AgentMiddleware[];
  /** The agent's name. */
  name?: string;
}

/** An agent made by {@link createKsadkAgent}. */
export interface KsadkAgent {
  readonly agent: ReturnType<typeof createAgent>;
  readonly assembly: AgentAssembly;
  readonly gateway: ToolGateway;
  /** Every clash, skipped source, configuration problem and overridden variable. */
  readonly warnings: readonly string[];
  close(): Promise<void>;
}

/**
 * `createAgent` with KsADK applied: the assembled tools in order, the assembly's instructions
 * appended to the system prompt, a checkpointer (so approvals can pause the graph) and the
 * KsADK middleware (so misconfiguration fails the run instead of reaching the model).
 *
 * @example
 * ```ts
 * const { agent } = await createKsadkAgent({ model, systemPrompt: 'You keep notes.', builtins: { profile: 'coding' } });
 * const state = await agent.invoke({ messages: [{ role: 'user', content: 'hi' }] }, { configurable: { thread_id: 't1' } });
 * ```
 */
export async function createKsadkAgent(options: CreateKsadkAgentOptions): Promise<KsadkAgent> {
  const { model, systemPrompt, checkpointer, middleware = [], name, ...load } = options;
  const { tools, assembly, gateway, instructions, warnings, close } =
    await loadLangGraphTools(load);
  const prompt = [systemPrompt?.trim(), instructions].filter(Boolean).join('\n\n');
  // `langchain` is loaded here, on first use, so importing @ksadk/langgraph stays cheap.
  const { createAgent } = await import('langchain');
  const agent = createAgent({
    model,
    tools,
    ...(prompt ? { systemPrompt: prompt } : {}),
    checkpointer: checkpointer ?? new MemorySaver(),
    middleware: [await createKsadkMiddleware(), ...middleware],
    ...(name ? { name } : {}),
  });
  return { agent, assembly, gateway, warnings, close };
}
