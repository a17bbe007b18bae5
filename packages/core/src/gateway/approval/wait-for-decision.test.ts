import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { runWithInvocationContext } from '../../context/invocation-context.js';
import { defineTool } from '../../tool/define-tool.js';
import { createToolGateway } from '../create-tool-gateway.js';
import { type ApprovalRequiredResult, isApprovalRequired } from '../results.js';
import { waitForApprovalDecision } from './wait-for-decision.js';

const alice = { accountId: 'acct-a', userId: 'alice', sessionId: 's1' };
const write = defineTool({
  name: 'write_note',
  description: 'Writes a note.',
  input: z.object({ text: z.string() }),
  policy: { riskLevel: 'high', sideEffects: ['notes_write'] },
  execute: ({ text }) => ({ ok: true, text }),
});

async function pendingRequest(gateway: ReturnType<typeof createToolGateway>) {
  const first = await runWithInvocationContext(alice, () =>
    gateway.invoke(write, { text: 'draft' }, { callId: 'c1' }),
  );
  expect(isApprovalRequired(first)).toBe(true);
  return (first as unknown as ApprovalRequiredResult).approval_request;
}

describe('waitForApprovalDecision', () => {
  it('repeats a decision made elsewhere: approval, edited approval, rejection', {
    timeout: 10_000,
  }, async () => {
    for (const [decide, expected] of [
      [
        (g: ReturnType<typeof createToolGateway>, id: string) =>
          g.approve(id, { principal: alice }),
        { type: 'approve' },
      ],
      [
        (g: ReturnType<typeof createToolGateway>, id: string) =>
          g.approve(id, { principal: alice, args: { text: 'final' }, tool: write }),
        { type: 'approve', args: { text: 'final' } },
      ],
      [
        (g: ReturnType<typeof createToolGateway>, id: string) =>
          g.reject(id, { principal: alice, reason: 'no' }),
        { type: 'reject' },
      ],
    ] as const) {
      const gateway = createToolGateway({ env: {} });
      const request = await pendingRequest(gateway);
      const waiting = runWithInvocationContext(alice, () =>
        waitForApprovalDecision(gateway, request.id, { waitMs: 5000 }),
      );
      setTimeout(() => void decide(gateway, request.id), 150);
      expect(await waiting).toEqual(expected);
    }
  });

  it('ends timed_out, cancelled or expired without deciding, telling the host while it waits', {
    timeout: 10_000,
  }, async () => {
    const gateway = createToolGateway({ env: {} });
    const request = await pendingRequest(gateway);
    const waited: number[] = [];
    const started = Date.now();
    expect(
      await waitForApprovalDecision(gateway, request.id, {
        principal: alice,
        waitMs: 1500,
        progressEveryMs: 150,
        onWaiting: (ms) => {
          waited.push(ms);
          throw new Error('a listener that throws changes nothing');
        },
      }),
    ).toBe('timed_out');
    expect(Date.now() - started).toBeLessThan(3000);
    expect(waited.length).toBeGreaterThanOrEqual(2);
    const stop = new AbortController();
    setTimeout(() => stop.abort(), 100);
    expect(
      await waitForApprovalDecision(gateway, request.id, { principal: alice, signal: stop.signal }),
    ).toBe('cancelled');
    // Still pending: waiting decided nothing.
    expect((await gateway.approvalStatus(request.id, { principal: alice }))?.status).toBe(
      'pending',
    );

    const short = createToolGateway({ env: {}, approvalTtlMs: 200 });
    const soon = await pendingRequest(short);
    expect(await waitForApprovalDecision(short, soon.id, { principal: alice, waitMs: 3000 })).toBe(
      'expired',
    );
  });

  it("another account's request is never seen, so it waits it out", { timeout: 5000 }, async () => {
    const gateway = createToolGateway({ env: {} });
    const request = await pendingRequest(gateway);
    await gateway.approve(request.id, { principal: alice });
    expect(
      await waitForApprovalDecision(gateway, request.id, {
        principal: { accountId: 'acct-m' },
        waitMs: 400,
      }),
    ).toBe('timed_out');
  });
});
