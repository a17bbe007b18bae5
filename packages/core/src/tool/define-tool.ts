import type { z } from 'zod';
import {
  type CredentialSpecInput,
  normalizeCredentialSpecs,
} from '../credentials/credential-spec.js';
import { checkOptions, type OptionKeys } from '../errors/check-options.js';
import { KsadkError } from '../errors/ksadk-error.js';
import { findRefLoop } from '../schema/ref-loop.js';
import { normalizeToolPolicy, type ToolPolicyInput } from './policy.js';
import type {
  JsonSchema,
  JsonSchemaTool,
  ToolExecutionContext,
  ToolResultBudgetOptions,
  ZodTool,
} from './tool.js';

/** The model-facing tool name rule (OpenAI's, the strictest of the targets). */
export const TOOL_NAME_PATTERN = /^[A-Za-z_][A-Za-z0-9_-]{0,63}$/;

/** Definition fields shared by {@link defineTool} and {@link defineJsonSchemaTool}. */
interface ToolDefinitionBase {
  /** Model-facing name, `^[A-Za-z_][A-Za-z0-9_-]{0,63}$`. */
  name: string;
  /** What the tool does, when to use it, when not to, and its limits. */
  description: string;
  /** Approval policy; missing fields take their defaults (low risk, no side effects). */
  policy?: ToolPolicyInput;
  /** Catalogue group. @default 'custom' */
  group?: string;
  /** Per-call timeout in milliseconds. @default the gateway's `timeoutMs` */
  timeoutMs?: number;
  /** Large-field budgeting for this tool's results. */
  resultBudget?: ToolResultBudgetOptions;
  /** Where the tool acts (`workspace_root`, `public_http`…), shown in descriptors. */
  boundary?: string;
  /**
   * A short human-readable summary of a call ("Send 10,000 € to ACME"), shown in the approval
   * request. Called once per request, with the validated arguments; what it throws or returns that
   * is not a string is ignored, and the summary is cut to 300 characters.
   */
  describeCall?: (args: Record<string, unknown>) => string;
  /**
   * Credentials of the user the tool acts as (an OAuth sign-in, an API key): `execute` gets each with
   * `context.credential(id)`; a missing one pauses the call for the host (`credential_required`).
   */
  credentials?: readonly CredentialSpecInput[];
}

/** A zod-based tool definition. */
export interface ToolDefinition<TSchema extends z.ZodObject, TOutput> extends ToolDefinitionBase {
  /** zod 4 object describing the input; it is the single source of truth for every schema form. */
  input: TSchema;
  /** Runs the tool with validated input. Return a JSON object with `ok`. */
  execute: (input: z.output<TSchema>, context: ToolExecutionContext) => TOutput | Promise<TOutput>;
}

/** A JSON-Schema-based tool definition (MCP tools, framework-managed tools). */
export interface JsonSchemaToolDefinition<TOutput> extends ToolDefinitionBase {
  /** JSON Schema of the input; must describe an object. */
  inputSchema: JsonSchema;
  /** The name at the tool's origin, when `name` was sanitised from it. */
  originalName?: string;
  /** Runs the tool with input validated against `inputSchema`. */
  execute: (
    input: Record<string, unknown>,
    context: ToolExecutionContext,
  ) => TOutput | Promise<TOutput>;
}

/** Keys every tool definition may have. */
const BASE_KEYS = {
  name: true,
  description: true,
  policy: true,
  group: true,
  timeoutMs: true,
  resultBudget: true,
  boundary: true,
  describeCall: true,
  credentials: true,
} as const satisfies OptionKeys<ToolDefinitionBase>;

/** The optional per-call parts of a definition: its call summary and its credentials. */
function callParts(definition: ToolDefinitionBase): Pick<ZodTool, 'describeCall' | 'credentials'> {
  return {
    ...(definition.describeCall ? { describeCall: definition.describeCall } : {}),
    ...(definition.credentials
      ? { credentials: normalizeCredentialSpecs(definition.credentials, definition.name) }
      : {}),
  };
}

function checkBase(definition: ToolDefinitionBase): void {
  const { name } = definition;
  if (typeof name !== 'string' || !TOOL_NAME_PATTERN.test(name)) {
    throw new KsadkError(
      'invalid_tool',
      `Tool name "${String(name)}" must match ${TOOL_NAME_PATTERN} (use sanitizeToolName for external names).`,
    );
  }
  if (typeof definition.description !== 'string' || definition.description.trim() === '') {
    throw new KsadkError('invalid_tool', `Tool "${name}" needs a description.`);
  }
  if (definition.describeCall !== undefined && typeof definition.describeCall !== 'function') {
    throw new KsadkError('invalid_tool', `Tool "${name}": describeCall must be a function.`);
  }
  if (definition.timeoutMs !== undefined && !(definition.timeoutMs > 0)) {
    throw new KsadkError('invalid_tool', `Tool "${name}": timeoutMs must be a positive number.`);
  }
}

function isZodObject(value: unknown): value is z.ZodObject {
  const def = (value as { _zod?: { def?: { type?: string } } } | undefined)?._zod?.def;
  return def?.type === 'object';
}

/**
 * Defines a tool from a zod 4 object schema. The schema must not contain an `approval`
 * field: approvals come from the host, never from model arguments.
 *
 * @throws {KsadkError} `invalid_tool` for a bad name, a missing description, a non-object
 * input or an `approval` field.
 *
 * @example
 * ```ts
 * const writeNote = defineTool({
 *   name: 'write_note',
 *   description: 'Save a short note for the user. Do not use for secrets.',
 *   input: z.object({ title: z.string(), body: z.string().max(10_000) }),
 *   policy: { riskLevel: 'medium', sideEffects: ['notes_write'] },
 *   execute: async ({ title, body }) => ({ ok: true, saved: title, chars: body.length }),
 * });
 * ```
 */
export function defineTool<TSchema extends z.ZodObject, TOutput>(
  definition: ToolDefinition<TSchema, TOutput>,
): ZodTool<TSchema, TOutput> {
  checkBase(definition);
  checkOptions(
    definition,
    { ...BASE_KEYS, input: true, execute: true },
    `defineTool(${JSON.stringify(String(definition.name))})`,
    'invalid_tool',
  );
  if (!isZodObject(definition.input)) {
    throw new KsadkError(
      'invalid_tool',
      `Tool "${definition.name}": input must be a zod 4 z.object(...).`,
    );
  }
  if ('approval' in definition.input.shape) {
    throw new KsadkError(
      'invalid_tool',
      `Tool "${definition.name}" declares an "approval" input; approvals come from the host through the gateway, never from model arguments.`,
    );
  }
  return Object.freeze({
    kind: 'zod' as const,
    name: definition.name,
    description: definition.description,
    group: definition.group ?? 'custom',
    policy: normalizeToolPolicy(definition.policy, definition.name),
    timeoutMs: definition.timeoutMs,
    resultBudget: definition.resultBudget,
    originalName: undefined,
    boundary: definition.boundary,
    ...callParts(definition),
    input: definition.input,
    execute: definition.execute,
  });
}

/**
 * Defines a tool whose input is described by a JSON Schema (MCP tools, tools managed by a
 * framework). Arguments are validated against the schema before `execute` runs.
 *
 * @throws {KsadkError} `invalid_tool` for a bad name, a non-object schema or an `approval` property.
 *
 * @example
 * ```ts
 * const forecast = defineJsonSchemaTool({
 *   name: 'weather_forecast',
 *   description: 'Three-day forecast for a city.',
 *   group: 'mcp:weather',
 *   inputSchema: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
 *   execute: async ({ city }) => ({ ok: true, city, days: [] }),
 * });
 * ```
 */
export function defineJsonSchemaTool<TOutput>(
  definition: JsonSchemaToolDefinition<TOutput>,
): JsonSchemaTool<TOutput> {
  checkBase(definition);
  checkOptions(
    definition,
    { ...BASE_KEYS, inputSchema: true, originalName: true, execute: true },
    `defineJsonSchemaTool(${JSON.stringify(String(definition.name))})`,
    'invalid_tool',
  );
  const schema = definition.inputSchema;
  if (typeof schema !== 'object' || schema === null || Array.isArray(schema)) {
    throw new KsadkError(
      'invalid_tool',
      `Tool "${definition.name}": inputSchema must be a JSON Schema object.`,
    );
  }
  if (schema['type'] !== undefined && schema['type'] !== 'object') {
    throw new KsadkError(
      'invalid_tool',
      `Tool "${definition.name}": inputSchema must describe an object.`,
    );
  }
  const loop = findRefLoop(schema);
  if (loop) {
    throw new KsadkError(
      'invalid_tool',
      `Tool "${definition.name}": inputSchema has a $ref loop at ${loop.slice(0, 200)} (any validator would recurse forever).`,
    );
  }
  const properties = schema['properties'];
  if (typeof properties === 'object' && properties !== null && 'approval' in properties) {
    throw new KsadkError(
      'invalid_tool',
      `Tool "${definition.name}" declares an "approval" input; approvals come from the host, never from model arguments.`,
    );
  }
  return Object.freeze({
    kind: 'json-schema' as const,
    name: definition.name,
    description: definition.description,
    group: definition.group ?? 'external',
    policy: normalizeToolPolicy(definition.policy, definition.name),
    timeoutMs: definition.timeoutMs,
    resultBudget: definition.resultBudget,
    originalName: definition.originalName,
    boundary: definition.boundary,
    ...callParts(definition),
    inputSchema: structuredClone(schema),
    execute: definition.execute,
  });
}
