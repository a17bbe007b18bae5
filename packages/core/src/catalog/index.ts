// @ksadk/core/catalog — the tool catalogue, load-time assembly and the one loader adapters call.
export {
  type A2AAgentConfig,
  type AgentAssembly,
  type AssembleAgentToolsOptions,
  assembleAgentTools,
  type SkillsSlot,
  type ToolSource,
} from './assemble-agent-tools.js';
export type {
  BuiltinToolsMode,
  BuiltinToolsProfile,
} from './catalog-modes.js';
export type { ExternalToolSpec, RegisterExternalToolsOptions } from './external-tools.js';
export {
  type AgentToolsLoad,
  type LoadAgentToolsOptions,
  loadAgentTools,
} from './load-agent-tools.js';
export {
  createToolCatalog,
  type ToolCatalog,
  type ToolCatalogOptions,
  type ToolSelection,
} from './tool-catalog.js';
export type { ToolDescriptor } from './tool-descriptor.js';
