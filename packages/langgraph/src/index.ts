export {
  type CreateKsadkAgentOptions,
  createKsadkAgent,
  type KsadkAgent,
  type LangGraphToolsLoad,
  type LoadLangGraphToolsOptions,
  loadLangGraphTools,
} from './create-ksadk-agent.js';
export { createKsadkMiddleware } from './ksadk-middleware.js';
export {
  type KsadkApprovalInterrupt,
  type KsadkProgressEvent,
  type LangGraphToolsOptions,
  toLangGraphTools,
} from './to-langgraph-tools.js';
