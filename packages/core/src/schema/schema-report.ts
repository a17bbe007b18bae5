import type { JsonSchema, Tool } from '../tool/tool.js';
import { toolJsonSchema } from './canonical-schema.js';
import {
  aiSdkToolSchema,
  anthropicToolSchema,
  geminiToolSchema,
  langChainToolSchema,
  openAIToolSchema,
} from './tool-schemas.js';

/** The frameworks a tool's schema is converted for. */
export type SchemaTarget = 'openai' | 'gemini' | 'anthropic' | 'ai-sdk' | 'langchain';

/** Every target a report covers, in the order reports list them. */
export const SCHEMA_TARGETS: readonly SchemaTarget[] = [
  'openai',
  'gemini',
  'anthropic',
  'ai-sdk',
  'langchain',
];

/** What one framework gets for a tool: its schema, or why the conversion failed. */
export type TargetSchema =
  | {
      readonly ok: true;
      readonly schema: JsonSchema;
      /** OpenAI: whether the strict form holds, and why not when it does not. */
      readonly strict?: boolean;
      readonly reason?: string;
      /** LangChain: the tool's own zod object is handed over (shown here as its JSON Schema). */
      readonly zod?: boolean;
    }
  | { readonly ok: false; readonly problem: string };

/** A tool's schema as every framework gets it, with the problems of the conversions. */
export interface ToolSchemaReport {
  /** The tool's model-facing name. */
  readonly name: string;
  /** The canonical JSON Schema every conversion starts from. */
  readonly canonical: JsonSchema;
  readonly targets: Readonly<Record<SchemaTarget, TargetSchema>>;
  /** One line per conversion that failed or lost something (OpenAI strict mode not holding). */
  readonly problems: readonly string[];
}

const messageOf = (error: unknown): string =>
  (error instanceof Error ? error.message : String(error)).slice(0, 300);

/**
 * What each framework gets for a tool — OpenAI (strict where lossless, with the reason when not),
 * Gemini / ADK, Anthropic, the AI SDK and LangChain — through the same pipeline the adapters use,
 * each conversion's failure caught and reported rather than thrown. For consoles and command lines
 * that answer "why does my tool's schema fail with provider X".
 *
 * @example
 * ```ts
 * const report = describeToolSchemas(writeNote);
 * if (!report.targets.openai.ok || !report.targets.openai.strict) console.log(report.problems);
 * ```
 */
export function describeToolSchemas(tool: Tool): ToolSchemaReport {
  const problems: string[] = [];
  let canonical: JsonSchema;
  try {
    canonical = toolJsonSchema(tool);
  } catch (error) {
    const problem = `no JSON Schema: ${messageOf(error)}`;
    const failed: TargetSchema = { ok: false, problem };
    return {
      name: tool.name,
      canonical: {},
      targets: {
        openai: failed,
        gemini: failed,
        anthropic: failed,
        'ai-sdk': failed,
        langchain: failed,
      },
      problems: [problem],
    };
  }
  const attempt = (target: SchemaTarget, convert: () => TargetSchema): TargetSchema => {
    try {
      return convert();
    } catch (error) {
      const problem = messageOf(error);
      problems.push(`${target}: ${problem}`);
      return { ok: false, problem };
    }
  };
  const targets: Record<SchemaTarget, TargetSchema> = {
    openai: attempt('openai', () => {
      const { schema, strict, reason } = openAIToolSchema(tool);
      if (!strict) problems.push(`openai: not strict — ${reason ?? 'no reason given'}`);
      return { ok: true, schema, strict, ...(reason ? { reason } : {}) };
    }),
    gemini: attempt('gemini', () => ({ ok: true, schema: geminiToolSchema(tool) })),
    anthropic: attempt('anthropic', () => ({ ok: true, schema: anthropicToolSchema(tool) })),
    'ai-sdk': attempt('ai-sdk', () => ({ ok: true, schema: aiSdkToolSchema(tool) })),
    langchain: attempt('langchain', () => {
      const given = langChainToolSchema(tool);
      const zod = given === (tool as { input?: unknown }).input;
      if (!zod) return { ok: true, schema: given as JsonSchema };
      const { $schema: _dialect, ...schema } = canonical;
      return { ok: true, schema, zod: true };
    }),
  };
  return { name: tool.name, canonical, targets, problems };
}
