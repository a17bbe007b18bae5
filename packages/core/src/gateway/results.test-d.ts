// Type tests: compiled by `pnpm typecheck` (tsc), never run.
import { expectTypeOf } from 'vitest';
import { failureFor, gatewayFailure, type ToolErrorResult } from './results.js';
import type { ErrorTypeTable } from './tool-error-types.js';

const NOTE_ERROR_TYPES = { note_not_found: 'fix' } as const satisfies ErrorTypeTable;
const noteFailure = failureFor(NOTE_ERROR_TYPES);

// The table's types and the gateway's compile; the result keeps its type and extra fields.
const missing = noteFailure('note_not_found', 'No such note.', { title: 'todo' });
expectTypeOf(missing.error_type).toEqualTypeOf<'note_not_found'>();
expectTypeOf(missing.title).toEqualTypeOf<string>();
expectTypeOf(missing).toMatchTypeOf<ToolErrorResult>();
expectTypeOf(noteFailure('tool_timeout', 'Too slow.').error_type).toEqualTypeOf<'tool_timeout'>();

// A misspelt or foreign type does not compile.
// @ts-expect-error 'note_not_fund' is not an error type of the table or the gateway
noteFailure('note_not_fund', 'No such note.');
// @ts-expect-error another table's type
gatewayFailure('note_not_found', 'No such note.');
// @ts-expect-error a dynamic type must be typed as the table's keys
noteFailure('note_not_found' as string, 'No such note.');

// The table given by its type alone builds the same constructor; with neither, only the gateway's.
const byType = failureFor<typeof NOTE_ERROR_TYPES>();
expectTypeOf(
  byType('note_not_found', 'No such note.').error_type,
).toEqualTypeOf<'note_not_found'>();
// @ts-expect-error no table: a table's type is not the gateway's
failureFor()('note_not_found', 'No such note.');
expectTypeOf(failureFor()('tool_timeout', 'Too slow.').error_type).toEqualTypeOf<'tool_timeout'>();
