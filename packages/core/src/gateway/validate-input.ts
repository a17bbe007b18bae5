import type { Validator } from '@cfworker/json-schema';
import type { z } from 'zod';
import type { JsonSchema, Tool } from '../tool/tool.js';
import { echoValue } from '../util/sanitize-message.js';
import type { ArgumentIssue } from './results.js';

/** The outcome of validating raw model arguments against a tool's schema. */
export type ValidationOutcome =
  | { ok: true; value: Record<string, unknown> }
  | { ok: false; issues: ArgumentIssue[] };

const MAX_ISSUES = 20;
const validators = new WeakMap<JsonSchema, Validator>();
let validatorModule: Promise<typeof import('@cfworker/json-schema')> | undefined;

function draftOf(schema: JsonSchema): '4' | '7' | '2019-09' | '2020-12' {
  const declared = typeof schema['$schema'] === 'string' ? schema['$schema'] : '';
  if (declared.includes('draft-04')) return '4';
  if (declared.includes('draft-06') || declared.includes('draft-07')) return '7';
  if (declared.includes('2019-09')) return '2019-09';
  if (declared === '' && 'definitions' in schema && !('$defs' in schema)) return '7';
  return '2020-12';
}

async function jsonSchemaValidator(schema: JsonSchema): Promise<Validator> {
  const cached = validators.get(schema);
  if (cached) return cached;
  validatorModule ??= import('@cfworker/json-schema');
  const { Validator } = await validatorModule;
  const validator = new Validator(schema as never, draftOf(schema), false);
  validators.set(schema, validator);
  return validator;
}

function pointerToPath(pointer: string): string {
  return pointer
    .replace(/^#\/?/, '')
    .split('/')
    .filter(Boolean)
    .map((part) => part.replace(/~1/g, '/').replace(/~0/g, '~'))
    .join('.');
}

/** Validates against a zod tool's object: unknown keys are stripped, defaults applied. Synchronous. */
export function validateZodInput(
  schema: z.ZodObject,
  args: Record<string, unknown>,
): ValidationOutcome {
  const parsed = schema.safeParse(args);
  if (parsed.success) return { ok: true, value: parsed.data as Record<string, unknown> };
  return {
    ok: false,
    issues: parsed.error.issues.slice(0, MAX_ISSUES).map((issue) => ({
      path: echoValue(issue.path.map(String).join('.')),
      message: echoValue(issue.message),
    })),
  };
}

/** Validates against a JSON Schema with a standards validator (drafts 4, 7, 2019-09, 2020-12). */
export async function validateJsonSchemaInput(
  schema: JsonSchema,
  args: Record<string, unknown>,
): Promise<ValidationOutcome> {
  const validator = await jsonSchemaValidator(schema);
  const result = validator.validate(args);
  if (result.valid) return { ok: true, value: args };
  // The validator reports each failure and the keywords that contain it; keep the most specific ones.
  const leaves = result.errors.filter(
    (error) => !['properties', 'allOf', 'anyOf', '$ref', 'items'].includes(error.keyword),
  );
  const chosen = (leaves.length > 0 ? leaves : result.errors).slice(0, MAX_ISSUES);
  return {
    ok: false,
    issues: chosen.map((error) => ({
      path: echoValue(pointerToPath(error.instanceLocation)),
      message: echoValue(error.error),
    })),
  };
}

const UNVALIDATABLE: ValidationOutcome = {
  ok: false,
  issues: [{ path: '', message: 'The arguments could not be checked against the tool schema.' }],
};

/**
 * Validates raw arguments against a tool's schema (zod or JSON Schema). A validator that throws
 * (a cyclic `$ref`, a refinement that crashes, a stack overflow) gives `invalid_arguments`-style
 * issues, never an exception.
 */
export function validateToolInput(
  tool: Tool,
  args: Record<string, unknown>,
): ValidationOutcome | Promise<ValidationOutcome> {
  try {
    if (tool.kind === 'zod') return validateZodInput(tool.input, args);
    return validateJsonSchemaInput(tool.inputSchema, args).catch(() => UNVALIDATABLE);
  } catch {
    return UNVALIDATABLE;
  }
}
