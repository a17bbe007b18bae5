export {
  type AiSdkToolsLoad,
  type LoadAiSdkToolsOptions,
  loadAiSdkTools,
} from './load-ai-sdk-tools.js';
export { type AiSdkModelOutput, modelOutputOf } from './model-output.js';
export { settleApprovalResponses } from './settle-denials.js';
export { type AiSdkToolsOptions, toAiSdkTools } from './to-ai-sdk-tools.js';
export {
  type GatewayToolApproval,
  type GatewayToolApprovalFunction,
  type GatewayToolApprovalStatus,
  gatewayToolApproval,
} from './tool-approval.js';
