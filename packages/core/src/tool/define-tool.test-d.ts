// Type tests: compiled by `pnpm typecheck` (tsc), never run.
import { expectTypeOf } from 'vitest';
import { z } from 'zod';
import type { ApprovalRequiredResult, ToolErrorResult, ToolResult } from '../gateway/results.js';
import type { ToolErrorType } from '../tool-error-types.js';
import { defineJsonSchemaTool, defineTool } from './define-tool.js';
import type { JsonSchemaTool, ToolExecutionContext, ZodTool } from './tool.js';

// defineTool infers the input from the zod schema — defaults applied, optional kept optional —
// and keeps the output type.
const note = defineTool({
  name: 'write_note',
  description: 'Writes.',
  input: z.object({
    title: z.string(),
    body: z.string().default(''),
    tags: z.array(z.string()).optional(),
  }),
  execute: (input, context) => {
    expectTypeOf(input).toEqualTypeOf<{
      title: string;
      body: string;
      tags?: string[] | undefined;
    }>();
    expectTypeOf(context).toEqualTypeOf<ToolExecutionContext>();
    return { ok: true as const, chars: input.body.length };
  },
});
expectTypeOf(note.kind).toEqualTypeOf<'zod'>();
expectTypeOf(note).toMatchTypeOf<ZodTool>();
expectTypeOf(note.execute).returns.toEqualTypeOf<
  { ok: true; chars: number } | Promise<{ ok: true; chars: number }>
>();

// A JSON Schema tool takes plain records.
const external = defineJsonSchemaTool({
  name: 'lookup',
  description: 'Looks up.',
  inputSchema: { type: 'object' },
  execute: (input) => {
    expectTypeOf(input).toEqualTypeOf<Record<string, unknown>>();
    return { ok: true };
  },
});
expectTypeOf(external).toMatchTypeOf<JsonSchemaTool>();

// @ts-expect-error — `input` must be a zod object, not a plain object.
defineTool({ name: 'bad', description: 'Bad.', input: { x: 1 }, execute: () => ({ ok: true }) });

// Results: errors carry KsADK's error types (or a tool's own), approval envelopes are results.
declare const failure: ToolErrorResult;
expectTypeOf(failure.error_type).toMatchTypeOf<ToolErrorType | (string & {})>();
expectTypeOf<ApprovalRequiredResult>().toMatchTypeOf<{ ok: false; approval_required: true }>();
expectTypeOf<ToolResult>().toMatchTypeOf<{ ok: boolean }>();
