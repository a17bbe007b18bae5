export { createKsadkMiddleware } from './ksadk-middleware.js';
export {
  type KsadkApprovalInterrupt,
  type LangGraphToolsOptions,
  toLangGraphTools,
} from './to-langgraph-tools.js';
