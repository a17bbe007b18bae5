import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { defineTool } from '../tool/define-tool.js';
import type { ToolPolicyInput } from '../tool/policy.js';
import { TOOL_ERROR_TYPES } from '../tool-error-types.js';
import { createToolGateway } from './create-tool-gateway.js';

const env = {} as NodeJS.ProcessEnv;
const gateway = createToolGateway({ env, approvalMode: 'full' });

/** A tool that runs until it is stopped, with `policy`. */
const hanging = (policy: ToolPolicyInput) =>
  defineTool({
    name: 'slow',
    description: 'Never finishes on its own.',
    input: z.object({}),
    policy,
    timeoutMs: 50,
    execute: (_input, context) =>
      new Promise((resolve) =>
        context.signal.addEventListener('abort', () => resolve({ ok: true })),
      ),
  });

describe('outcome unknown: a stopped call that may have taken effect is not "retry"', () => {
  it('a timed-out write answers outcome_unknown, never to be repeated blindly; a read stays retryable', {
    timeout: 5_000,
  }, async () => {
    const write = await gateway.invoke(hanging({ riskLevel: 'medium' }), {});
    expect(write).toMatchObject({ ok: false, error_type: 'outcome_unknown', outcome: 'unknown' });
    expect(String(write['error_message'])).toMatch(
      /did not finish within 50 ms.*do not repeat it without checking/,
    );
    expect(TOOL_ERROR_TYPES.outcome_unknown).toBe('no');

    const declared = await gateway.invoke(hanging({ sideEffects: ['notes_write'] }), {});
    expect(declared).toMatchObject({ error_type: 'outcome_unknown' });

    const read = await gateway.invoke(hanging({}), {});
    expect(read).toMatchObject({ ok: false, error_type: 'tool_timeout' });
    expect(TOOL_ERROR_TYPES.tool_timeout).toBe('retry');

    const idempotent = await gateway.invoke(hanging({ riskLevel: 'high', idempotent: true }), {});
    expect(idempotent).toMatchObject({ error_type: 'tool_timeout' });
  });

  it("a tool's own timeout (a command that ran out of time) is accounted for the same way, its fields kept", async () => {
    const command = defineTool({
      name: 'run',
      description: 'Runs a command.',
      input: z.object({}),
      policy: { riskLevel: 'high', sideEffects: ['sandbox_command_execution'] },
      execute: () => ({
        ok: false,
        error_type: 'tool_timeout',
        error_message: 'The command was stopped after 1 s.',
        timed_out: true,
        retryable: true,
        stdout: 'partial',
      }),
    });
    const result = await gateway.invoke(command, {});
    expect(result).toMatchObject({
      ok: false,
      error_type: 'outcome_unknown',
      timed_out: true,
      stdout: 'partial',
    });
    expect(result).not.toHaveProperty('retryable');
  });

  it('cancelled while it ran: unknown for a write, tool_aborted for a read; cancelled before it ran: tool_aborted', {
    timeout: 5_000,
  }, async () => {
    const running = new AbortController();
    const write = gateway.invoke(
      hanging({ riskLevel: 'medium' }),
      {},
      { signal: running.signal, timeoutMs: 5_000 },
    );
    setTimeout(() => running.abort(), 20);
    expect(await write).toMatchObject({ error_type: 'outcome_unknown' });

    const reading = new AbortController();
    const read = gateway.invoke(hanging({}), {}, { signal: reading.signal, timeoutMs: 5_000 });
    setTimeout(() => reading.abort(), 20);
    expect(await read).toMatchObject({ error_type: 'tool_aborted' });

    const before = new AbortController();
    before.abort();
    expect(
      await gateway.invoke(hanging({ riskLevel: 'medium' }), {}, { signal: before.signal }),
    ).toMatchObject({ error_type: 'tool_aborted' });
  });
});
