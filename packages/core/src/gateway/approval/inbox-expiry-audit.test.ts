import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  type InvocationContext,
  runWithInvocationContext,
} from '../../context/invocation-context.js';
import { defineTool } from '../../tool/define-tool.js';
import type { ToolPolicyInput } from '../../tool/policy.js';
import { cpuTimeOf } from '../../util/test-fixtures/cpu-time.js';
import { createToolGateway } from '../create-tool-gateway.js';
import { isApprovalRequired, type ToolResult } from '../results.js';
import type { ApprovalDecidedEvent } from './gate.js';

const env = {} as NodeJS.ProcessEnv;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function tool(runs: unknown[] = [], policy: ToolPolicyInput = {}) {
  return defineTool({
    name: 'transfer',
    description: 'Transfers money.',
    input: z.object({ amount: z.number(), to: z.string() }),
    policy: { riskLevel: 'medium', sideEffects: ['payment'], ...policy },
    describeCall: ({ amount, to }) => `Transfer ${String(amount)} € to ${String(to)}`,
    execute: (input) => {
      runs.push(input);
      return { ok: true };
    },
  });
}

const as = <T>(context: InvocationContext, fn: () => Promise<T>): Promise<T> =>
  runWithInvocationContext(context, fn);
const idOf = (result: ToolResult): string => {
  if (!isApprovalRequired(result))
    throw new Error(`expected approval_required, got ${JSON.stringify(result)}`);
  return result.approval_request.id;
};
const a = { accountId: 'acct-a', userId: 'ann', sessionId: 'sa' };
const b = { accountId: 'acct-b', userId: 'ben', sessionId: 'sb' };

describe('the inbox', () => {
  it('lists what is pending for one account, newest first and paged, with what a human needs', async () => {
    const gateway = createToolGateway({ env });
    const t = tool();
    const ids: string[] = [];
    for (let index = 0; index < 5; index += 1)
      ids.push(
        idOf(
          await as(a, () => gateway.invoke(t, { amount: index, to: 'x' }, { callId: `c${index}` })),
        ),
      );
    await as(b, () => gateway.invoke(t, { amount: 99, to: 'y' }));
    const first = await as(a, () => gateway.listApprovalRequests({ limit: 2 }));
    const second = await as(a, () =>
      gateway.listApprovalRequests({ limit: 2, cursor: first.nextCursor! }),
    );
    const third = await as(a, () =>
      gateway.listApprovalRequests({ limit: 2, cursor: second.nextCursor! }),
    );
    expect([...first.items, ...second.items, ...third.items].map((item) => item.id)).toEqual(
      [...ids].reverse(),
    );
    expect(third.nextCursor).toBeUndefined();
    expect(first.items[0]).toMatchObject({
      status: 'pending',
      account_id: 'acct-a',
      user_id: 'ann',
      session_id: 'sa',
      tool_call_id: 'c4',
      tool_name: 'transfer',
      risk_level: 'medium',
      side_effects: ['payment'],
      arguments: { amount: 4, to: 'x' },
      summary: 'Transfer 4 € to x',
      why: expect.stringMatching(/medium risk/),
    });
    // Nothing of another account's, whatever the filters; an admin sees both.
    const other = await as(b, () => gateway.listApprovalRequests({ status: 'all' }));
    expect(other.items.map((item) => item.account_id)).toEqual(['acct-b']);
    expect(await as(b, () => gateway.listApprovalRequests({ sessionId: 'sa' }))).toEqual({
      items: [],
    });
    expect((await gateway.listApprovalRequests({ principal: { admin: true } })).items).toHaveLength(
      6,
    );
    // Decided requests leave the pending list and show under their status.
    await as(a, () => gateway.approve(ids[0]!));
    await as(a, () => gateway.reject(ids[1]!, { reason: 'no' }));
    expect((await as(a, () => gateway.listApprovalRequests())).items).toHaveLength(3);
    expect(
      (await as(a, () => gateway.listApprovalRequests({ status: 'approved' }))).items.map(
        (i) => i.id,
      ),
    ).toEqual([ids[0]]);
    expect(
      (await as(a, () => gateway.listApprovalRequests({ status: 'rejected' }))).items[0],
    ).toMatchObject({
      id: ids[1],
      reason: 'no',
      decided_by: 'user:ann',
    });
    // A forged cursor is a page, never an error or another account's data.
    for (const cursor of ['-1', 'NaN', '{"__proto__":1}', 'x'.repeat(10_000)])
      expect(
        (await as(b, () => gateway.listApprovalRequests({ cursor }))).items.every(
          (i) => i.account_id === 'acct-b',
        ),
      ).toBe(true);
  });

  // The bench holds the 5 ms target on an idle machine; under the whole CI the bound is three times it.
  it('listing 100 pending requests out of 10,000 is quick in memory (bench target: 5 ms)', {
    timeout: 60_000,
  }, async () => {
    const gateway = createToolGateway({
      env,
      approvalStore: (await import('./store.js')).createInMemoryApprovalStore({
        perSession: { maxRecords: 20_000 },
        perAccount: { maxRecords: 20_000 },
      }),
    });
    const t = tool();
    await as(a, async () => {
      for (let index = 0; index < 10_000; index += 1)
        await gateway.invoke(t, { amount: index, to: 'x' });
    });
    // CPU time, not wall-clock: CI runs every package's tests at once on two cores.
    const times: number[] = [];
    for (let round = 0; round < 7; round += 1) {
      const { value: page, cpuMs } = await cpuTimeOf(() =>
        as(a, () => gateway.listApprovalRequests({ limit: 100 })),
      );
      times.push(cpuMs);
      expect(page.items).toHaveLength(100);
    }
    times.sort((x, y) => x - y);
    expect(times[3]).toBeLessThan(15);
  });

  it('announces requests and decisions; a hook that throws or rejects changes nothing', async () => {
    const requested: unknown[] = [];
    const decided: ApprovalDecidedEvent[] = [];
    const hookErrors: string[] = [];
    const gateway = createToolGateway({
      env,
      hooks: {
        onApprovalRequested: (request, context) => {
          requested.push([request.tool_name, request.summary, context.accountId]);
          return Promise.reject(new Error('webhook down'));
        },
        onApprovalDecided: (event) => {
          decided.push(event);
          throw new Error('pager down');
        },
        onHookError: (_error, hook) => hookErrors.push(hook),
      },
    });
    const runs: unknown[] = [];
    const t = tool(runs);
    await as(a, async () => {
      const id = idOf(await gateway.invoke(t, { amount: 5, to: 'x' }));
      const grant = await gateway.approve(id, { reason: 'fine' });
      expect(await gateway.invoke(t, { amount: 5, to: 'x' }, { approval: grant })).toEqual({
        ok: true,
      });
    });
    await sleep(10);
    expect(requested).toEqual([['transfer', 'Transfer 5 € to x', 'acct-a']]);
    expect(
      decided.map((event) => [event.decision, event.how, event.by, event.request.status]),
    ).toEqual([['approved', 'once', 'user:ann', 'approved']]);
    expect(hookErrors.sort()).toEqual(['onApprovalDecided', 'onApprovalRequested']);
    expect(runs).toHaveLength(1);
  });
});

describe('expiry', () => {
  it('rejects by default when nobody decided, tells the model once, and audits it', {
    timeout: 10_000,
  }, async () => {
    const runs: unknown[] = [];
    const decided: string[] = [];
    const gateway = createToolGateway({
      env,
      approvalTtlMs: 150,
      approvalRetentionMs: 60_000,
      hooks: { onApprovalDecided: (event) => decided.push(`${event.decision}/${event.how}`) },
    });
    const t = tool(runs);
    await as(a, async () => {
      const id = idOf(await gateway.invoke(t, { amount: 1, to: 'x' }, { callId: 'late' }));
      await sleep(250);
      expect(
        (await gateway.listApprovalRequests({ status: 'expired' })).items.map((item) => item.id),
      ).toEqual([id]);
      await expect(gateway.approve(id)).rejects.toMatchObject({ code: 'approval_not_found' });
      expect(await gateway.invoke(t, { amount: 1, to: 'x' }, { callId: 'late' })).toMatchObject({
        error_type: 'approval_expired',
      });
      // The same call again is a replay; a new call asks afresh.
      expect(await gateway.invoke(t, { amount: 1, to: 'x' }, { callId: 'late' })).toMatchObject({
        error_type: 'approval_already_used',
      });
      expect(
        isApprovalRequired(await gateway.invoke(t, { amount: 1, to: 'x' }, { callId: 'new' })),
      ).toBe(true);
      const audit = await gateway.auditLog();
      expect(audit.items.filter((entry) => entry.event === 'expired')).toHaveLength(1);
    });
    expect(decided).toEqual(['expired/expiry']);
    expect(runs).toEqual([]);
  });

  it('approves on expiry only when asked, and never for high or critical risk', {
    timeout: 10_000,
  }, async () => {
    const runs: unknown[] = [];
    const gateway = createToolGateway({
      env,
      approvalTtlMs: 100,
      approvalRetentionMs: 60_000,
      onExpiry: 'approve',
    });
    const medium = tool(runs);
    const high = defineTool({
      ...{ name: 'wire', description: 'Wires money.' },
      input: z.object({ amount: z.number() }),
      policy: { riskLevel: 'high', onExpiry: 'approve' },
      execute: (input) => {
        runs.push(input);
        return { ok: true };
      },
    });
    await as(a, async () => {
      idOf(await gateway.invoke(medium, { amount: 1, to: 'x' }));
      idOf(await gateway.invoke(high, { amount: 2 }));
      await sleep(200);
      expect(await gateway.invoke(medium, { amount: 1, to: 'x' })).toEqual({ ok: true });
      expect(await gateway.invoke(high, { amount: 2 })).toMatchObject({
        error_type: 'approval_expired',
      });
    });
    expect(runs).toEqual([{ amount: 1, to: 'x' }]);
  });
});

describe('the audit log', () => {
  it('records every kind of decision and use, per account, without arguments unless asked', async () => {
    const t = tool();
    for (const auditArguments of [false, true]) {
      const gateway = createToolGateway({ env, auditArguments });
      await as(a, async () => {
        const once = idOf(await gateway.invoke(t, { amount: 1, to: 'x' }, { callId: 'k1' }));
        const grant = await gateway.approve(once);
        await gateway.invoke(t, { amount: 1, to: 'x' }, { callId: 'k1', approval: grant });
        await gateway.invoke(t, { amount: 1, to: 'x' }, { callId: 'k1', approval: grant });
        const no = idOf(await gateway.invoke(t, { amount: 2, to: 'x' }));
        await gateway.reject(no, { reason: 'too much' });
      });
      await as(b, () => gateway.invoke(t, { amount: 3, to: 'y' }));
      const log = await as(a, () => gateway.auditLog());
      expect(log.items.map((entry) => entry.event).reverse()).toEqual([
        'requested',
        'approved',
        'used',
        'replay_refused',
        'requested',
        'rejected',
      ]);
      expect(
        log.items.every(
          (entry) => entry.accountId === 'acct-a' && /^[0-9a-f]{64}$/.test(entry.argsDigest),
        ),
      ).toBe(true);
      expect(log.items.find((entry) => entry.event === 'rejected')).toMatchObject({
        by: 'user:ann',
        reason: 'too much',
      });
      expect(log.items.some((entry) => entry.arguments !== undefined)).toBe(auditArguments);
      expect((await gateway.auditLog({ principal: { admin: true } })).items).toHaveLength(7);
      expect((await gateway.auditLog({ principal: { accountId: 'acct-b' } })).items).toHaveLength(
        1,
      );
      expect((await gateway.auditLog({ since: Date.now() + 60_000 })).items).toEqual([]);
    }
  });
});
