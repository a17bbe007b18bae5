// @ksadk/core/schema — for adapter authors: one schema pipeline and one name sanitiser.
export { toolJsonSchema } from './canonical-schema.js';
export { toGeminiSchema } from './gemini-schema.js';
export { normalizeStrictInput } from './normalize-strict-input.js';
export { type OpenAISchemaResult, toOpenAIStrictSchema } from './openai-strict.js';
export {
  describeToolSchemas,
  SCHEMA_TARGETS,
  type SchemaTarget,
  type TargetSchema,
  type ToolSchemaReport,
} from './schema-report.js';
export {
  createToolNameRegistry,
  sanitizeToolName,
  type ToolNameConflict,
  type ToolNameRegistry,
} from './tool-names.js';
export {
  aiSdkToolSchema,
  anthropicToolSchema,
  geminiToolSchema,
  langChainToolSchema,
  normalizeOpenAIArguments,
  type OpenAIToolSchemaOptions,
  openAIToolSchema,
} from './tool-schemas.js';
