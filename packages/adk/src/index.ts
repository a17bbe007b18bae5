export {
  KsadkAdkTool,
  type KsadkConfirmationPayload,
  type KsadkInputPayload,
} from './ksadk-adk-tool.js';
export { type AdkAgentLoad, type LoadAdkAgentOptions, loadAdkAgent } from './load-adk-agent.js';
export { type AdkToolsOptions, toAdkTools } from './to-adk-tools.js';
