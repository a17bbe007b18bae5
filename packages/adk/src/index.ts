export { KsadkAdkTool, type KsadkConfirmationPayload } from './ksadk-adk-tool.js';
export { type AdkToolsOptions, toAdkTools } from './to-adk-tools.js';
