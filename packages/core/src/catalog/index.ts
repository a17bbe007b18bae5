// @ksadk/core/catalog — the tool catalogue, load-time assembly and the one loader adapters call.
export {
  type A2AAgentConfig,
  type AgentAssembly,
  type AssembleAgentToolsOptions,
  type AssembleFromEnvOptions,
  assembleAgentTools,
  assembleAgentToolsFromEnv,
  type SkillsSlot,
  type ToolSource,
} from './assemble-agent-tools.js';
export {
  BUILTIN_TOOLS_ENV,
  type BuiltinToolsMode,
  type BuiltinToolsProfile,
  parseBuiltinToolsMode,
  parseBuiltinToolsProfile,
} from './catalog-modes.js';
export { DISPATCHER_ALIAS, DISPATCHER_NAME, TOOL_SEARCH_NAME } from './catalog-tools.js';
export type { ExternalToolSpec, RegisterExternalToolsOptions } from './external-tools.js';
export {
  type AgentToolsLoad,
  type LoadAgentToolsOptions,
  loadAgentTools,
} from './load-agent-tools.js';
export {
  createToolCatalog,
  DEFAULT_GROUP_ORDER,
  FOCUSED_TOOL_NAMES,
  isToolCatalog,
  type ToolCatalog,
  type ToolCatalogOptions,
  type ToolSelection,
} from './tool-catalog.js';
export type { ToolDescriptor } from './tool-descriptor.js';
