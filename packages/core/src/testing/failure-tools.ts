import { z } from 'zod';
import { defineTool } from '../tool/define-tool.js';
import type { Tool } from '../tool/tool.js';

/** Every way a tool can fail, plus one that succeeds (with a side effect to count). */
export const FAILURE_KINDS = [
  'ok',
  'throws',
  'rejects',
  'throws_string',
  'odd_message',
  'times_out',
  'aborts',
  'returns_cyclic',
] as const;

/** One of {@link FAILURE_KINDS}. */
export type FailureKind = (typeof FAILURE_KINDS)[number];

/** Tools named `fail_<kind>`, and how many times the `ok` one's side effect ran. */
export interface FailureTools {
  readonly tools: Tool[];
  /** Side effects per kind (only `ok` has one). */
  readonly ran: Map<FailureKind, number>;
  /** The tool name for a kind. */
  nameOf(kind: FailureKind): string;
}

/**
 * Tools that fail in every way a tool can — throw, reject, throw a non-Error, throw an Error whose
 * `message` is not a string, outlive their timeout, abort, return a cyclic value — and one that
 * succeeds with a counted side effect. For adapter tests: whatever mix of these a model calls in
 * one turn, every call must yield exactly one tool result, and the side effect must run exactly
 * once per successful call.
 *
 * @example
 * ```ts
 * const failures = createFailureTools();
 * const gateway = createToolGateway({ approvalMode: 'full' });
 * for (const tool of failures.tools) console.log(await gateway.invoke(tool, {})); // one result each
 * ```
 */
export function createFailureTools(): FailureTools {
  const ran = new Map<FailureKind, number>();
  const input = z.object({ n: z.number().int().optional() });
  const make = (kind: FailureKind, execute: () => unknown, timeoutMs?: number): Tool =>
    defineTool({
      name: `fail_${kind}`,
      description: `A test tool that ${kind === 'ok' ? 'succeeds' : `fails: ${kind}`}.`,
      input,
      ...(timeoutMs === undefined ? {} : { timeoutMs }),
      execute,
    });
  const tools = [
    make('ok', () => {
      ran.set('ok', (ran.get('ok') ?? 0) + 1);
      return { ok: true, done: true };
    }),
    make('throws', () => {
      throw new Error('it broke');
    }),
    make('rejects', async () => {
      await Promise.resolve();
      throw new TypeError('it broke later');
    }),
    make('throws_string', () => {
      throw 'a plain string';
    }),
    make('odd_message', () => {
      throw Object.assign(new Error('x'), { message: { not: 'a string' } });
    }),
    make(
      'times_out',
      // Answers only long after its 50 ms limit: even a machine that stalls for seconds runs the
      // limit's timer first (the late answer's timer is unref'd, so it holds nothing open).
      () => new Promise((resolve) => setTimeout(() => resolve({ ok: true }), 60_000).unref()),
      50,
    ),
    make('aborts', () => {
      throw new DOMException('The operation was aborted.', 'AbortError');
    }),
    make('returns_cyclic', () => {
      const value: Record<string, unknown> = { ok: true };
      value['self'] = value;
      return value;
    }),
  ];
  return { tools, ran, nameOf: (kind) => `fail_${kind}` };
}
