import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { runWithInvocationContext } from '../context/invocation-context.js';
import type { ExecutionSummary } from '../executions/execution-record.js';
import { createInMemoryExecutionStore } from '../executions/memory-execution-store.js';
import { defineTool } from '../tool/define-tool.js';
import { registerSecret } from '../util/redact.js';
import { createToolGateway } from './create-tool-gateway.js';
import { isApprovalRequired } from './results.js';

const env = {} as NodeJS.ProcessEnv;
const alice = { accountId: 'acct-a', userId: 'alice', sessionId: 's1' };
const mallory = { accountId: 'acct-m', userId: 'mallory', sessionId: 's1' };
const as = <T>(who: typeof alice, fn: () => T): T => runWithInvocationContext(who, fn);

/** A write (medium risk, side effects) that records each run and returns its number. */
function noteTool(runs: unknown[], behaviour: 'ok' | 'fail' | 'hang' = 'ok') {
  return defineTool({
    name: 'write_note',
    description: 'Writes a note.',
    input: z.object({ text: z.string() }),
    policy: { riskLevel: 'medium', sideEffects: ['notes_write'] },
    timeoutMs: 100,
    execute: async ({ text }, context) => {
      runs.push(text);
      if (behaviour === 'fail')
        return { ok: false, error_type: 'tool_error', error_message: 'disk' };
      if (behaviour === 'hang')
        await new Promise((resolve) => context.signal.addEventListener('abort', resolve));
      return { ok: true, text, run: runs.length };
    },
  });
}

const readTool = (runs: unknown[]) =>
  defineTool({
    name: 'read_note',
    description: 'Reads a note.',
    input: z.object({ text: z.string() }),
    timeoutMs: 100,
    execute: async (_input, context) => {
      runs.push('read');
      await new Promise((resolve) => context.signal.addEventListener('abort', resolve));
      return { ok: true };
    },
  });

describe('execution records', () => {
  it('every call that runs leaves a record: tool, digest, principal, times, outcome; never its arguments', async () => {
    const runs: unknown[] = [];
    const seen: ExecutionSummary[] = [];
    const gateway = createToolGateway({
      env,
      approvalMode: 'full',
      hooks: { onExecution: (record) => seen.push(record) },
    });
    await as(alice, async () => {
      await gateway.invoke(noteTool(runs), { text: 'secret plan' }, { callId: 'c1' });
      await gateway.invoke(noteTool(runs, 'fail'), { text: 'b' }, { callId: 'c2' });
      await gateway.invoke(noteTool(runs), { text: 123 }, { callId: 'c3' }); // invalid: never ran
    });
    const { items } = await as(alice, () => gateway.executions());
    expect(items.map((item) => [item.callId, item.outcome, item.errorType])).toEqual([
      ['c2', 'failed', 'tool_error'],
      ['c1', 'succeeded', undefined],
    ]);
    const [failed, succeeded] = items;
    expect(succeeded).toMatchObject({
      id: expect.stringMatching(/^exec_[0-9a-f]{32}$/),
      toolName: 'write_note',
      argsDigest: expect.stringMatching(/^[0-9a-f]{64}$/),
      accountId: 'acct-a',
      userId: 'alice',
      sessionId: 's1',
      status: 'succeeded',
      attempt: 1,
      callIdGiven: true,
    });
    expect(succeeded!.endedAt! >= succeeded!.startedAt).toBe(true);
    expect(JSON.stringify(items)).not.toContain('secret plan');
    expect(seen.map((record) => record.id)).toEqual([succeeded!.id, failed!.id]);
    expect(JSON.stringify(seen)).not.toContain('secret plan');
  });

  it('an approved call records its approval; a standing grant its grant', async () => {
    const gateway = createToolGateway({ env });
    const tool = noteTool([]);
    await as(alice, async () => {
      const asked = await gateway.invoke(tool, { text: 'a' }, { callId: 'c1' });
      if (!isApprovalRequired(asked)) throw new Error('expected approval_required');
      const grant = await gateway.approve(asked.approval_request.id);
      await gateway.invoke(tool, { text: 'a' }, { callId: 'c1', approval: grant });
      expect((await gateway.executions()).items[0]).toMatchObject({
        approvalId: asked.approval_request.id,
      });
      const next = await gateway.invoke(tool, { text: 'b' }, { callId: 'c2' });
      if (!isApprovalRequired(next)) throw new Error('expected approval_required');
      const { standingGrantId } = await gateway.approve(next.approval_request.id, {
        always: 'session',
      });
      await gateway.invoke(tool, { text: 'c' }, { callId: 'c3' });
      expect((await gateway.executions()).items[0]).toMatchObject({
        callId: 'c3',
        standingGrantId,
      });
    });
  });

  it('a write that times out after it started is unknown, never to be repeated; a read stays retryable', {
    timeout: 5_000,
  }, async () => {
    const runs: unknown[] = [];
    const gateway = createToolGateway({ env, approvalMode: 'full' });
    await as(alice, async () => {
      const write = await gateway.invoke(noteTool(runs, 'hang'), { text: 'a' }, { callId: 'w1' });
      expect(write).toMatchObject({ error_type: 'outcome_unknown', outcome: 'unknown' });
      expect(String(write['error_message'])).toMatch(/do not repeat it without checking/);
      const read = await gateway.invoke(readTool(runs), { text: 'a' }, { callId: 'r1' });
      expect(read).toMatchObject({ error_type: 'tool_timeout' });
      // The replay of the unknown write does not run it; the replay of the read runs again.
      const again = await gateway.invoke(noteTool(runs, 'hang'), { text: 'a' }, { callId: 'w1' });
      expect(again).toMatchObject({ error_type: 'outcome_unknown', outcome: 'unknown' });
      await gateway.invoke(readTool(runs), { text: 'a' }, { callId: 'r1' });
      const { items } = await gateway.executions({ outcome: 'unknown' });
      expect(items.map((item) => item.callId)).toEqual(['w1']);
      expect((await gateway.executions({ toolName: 'read_note' })).items[0]).toMatchObject({
        outcome: 'failed',
        errorType: 'tool_timeout',
        attempt: 2,
      });
    });
    expect(runs).toEqual(['a', 'read', 'read']);
  });

  it('the same call id replayed runs the tool once and returns the first result; other arguments are refused', async () => {
    const runs: unknown[] = [];
    const gateway = createToolGateway({ env, approvalMode: 'full' });
    const tool = noteTool(runs);
    await as(alice, async () => {
      const first = await gateway.invoke(tool, { text: 'a' }, { callId: 'c1' });
      expect(first).toMatchObject({ ok: true, run: 1 });
      const replay = await gateway.invoke(tool, { text: 'a' }, { callId: 'c1' });
      expect(replay).toMatchObject({ ok: true, text: 'a', run: 1, replayed: true });
      const conflict = await gateway.invoke(tool, { text: 'b' }, { callId: 'c1' });
      expect(conflict).toMatchObject({ ok: false, error_type: 'call_id_conflict' });
      // Without a call id every call is its own.
      await gateway.invoke(tool, { text: 'a' });
      await gateway.invoke(tool, { text: 'a' });
    });
    // Another account's call with the same id is another call.
    await as(mallory, () => gateway.invoke(tool, { text: 'a' }, { callId: 'c1' }));
    expect(runs).toEqual(['a', 'a', 'a', 'a']);
  });

  it('concurrent deliveries of one call id run it once and all get its result', async () => {
    const runs: unknown[] = [];
    const gateway = createToolGateway({ env, approvalMode: 'full' });
    const tool = noteTool(runs);
    const results = await as(alice, () =>
      Promise.all(
        Array.from({ length: 10 }, () => gateway.invoke(tool, { text: 'a' }, { callId: 'c1' })),
      ),
    );
    expect(runs).toEqual(['a']);
    expect(results.every((result) => result.ok && result['run'] === 1)).toBe(true);
    expect(results.filter((result) => result['replayed'] === true)).toHaveLength(9);
  });

  it('a failed call replayed runs again (a retry), as attempt 2', async () => {
    const runs: unknown[] = [];
    const gateway = createToolGateway({ env, approvalMode: 'full' });
    await as(alice, async () => {
      await gateway.invoke(noteTool(runs, 'fail'), { text: 'a' }, { callId: 'c1' });
      expect(await gateway.invoke(noteTool(runs), { text: 'a' }, { callId: 'c1' })).toMatchObject({
        ok: true,
      });
      expect((await gateway.executions()).items[0]).toMatchObject({
        attempt: 2,
        outcome: 'succeeded',
      });
    });
    expect(runs).toHaveLength(2);
  });

  it("another account lists nothing of the first's records; a malformed principal is refused", async () => {
    const gateway = createToolGateway({ env, approvalMode: 'full' });
    await as(alice, () => gateway.invoke(noteTool([]), { text: 'a' }, { callId: 'c1' }));
    expect((await as(mallory, () => gateway.executions())).items).toEqual([]);
    expect((await gateway.executions({ principal: { accountId: 'acct-m' } })).items).toEqual([]);
    expect((await gateway.executions({ principal: { admin: true } })).items).toHaveLength(1);
    await expect(
      gateway.executions({ principal: { accountId: 'acct-a', admin: true } as never }),
    ).rejects.toMatchObject({ code: 'invalid_arguments' });
    await expect(gateway.executions({ outcome: 'bogus' as never })).rejects.toMatchObject({
      code: 'invalid_arguments',
    });
  });

  it('execution(id) gives one record with the result it kept, only to its own account and user (admin: any)', async () => {
    const runs: unknown[] = [];
    const gateway = createToolGateway({ env, approvalMode: 'full' });
    const bob = { ...alice, userId: 'bob' };
    await as(alice, () => gateway.invoke(noteTool(runs), { text: 'kept' }, { callId: 'c1' }));
    await as(alice, () => gateway.invoke(noteTool(runs), { text: 'unnamed' }));
    const { items } = await as(alice, () => gateway.executions());
    const named = items.find((item) => item.callId === 'c1')!;
    const unnamed = items.find((item) => item.callId !== 'c1')!;
    const mine = await as(alice, () => gateway.execution(named.id));
    expect(mine).toMatchObject({ id: named.id, outcome: 'succeeded', toolName: 'write_note' });
    expect(mine?.result).toMatchObject({ ok: true, text: 'kept' });
    expect(mine).not.toHaveProperty('resultJson');
    // A call nobody named keeps no result: the record alone.
    const plain = await as(alice, () => gateway.execution(unnamed.id));
    expect(plain).toMatchObject({ id: unnamed.id, outcome: 'succeeded' });
    expect(plain).not.toHaveProperty('result');
    // Another account, another user of the account, made-up and hostile ids: not found.
    expect(await as(mallory, () => gateway.execution(named.id))).toBeUndefined();
    expect(await as(bob, () => gateway.execution(named.id))).toBeUndefined();
    expect(
      await gateway.execution(named.id, { principal: { accountId: 'acct-m' } }),
    ).toBeUndefined();
    for (const id of ['exec_0', '__proto__', 'x'.repeat(100_000), '']) {
      expect(await gateway.execution(id, { principal: { admin: true } })).toBeUndefined();
    }
    // The account itself and an admin see it; a malformed principal is refused, never widened.
    expect((await gateway.execution(named.id, { principal: { accountId: 'acct-a' } }))?.id).toBe(
      named.id,
    );
    expect(
      (await gateway.execution(named.id, { principal: { admin: true } }))?.result,
    ).toMatchObject({ text: 'kept' });
    await expect(
      gateway.execution(named.id, { principal: { admin: 'yes' } as never }),
    ).rejects.toMatchObject({ code: 'invalid_arguments' });
  });

  it('records keep the arguments only when asked (recordArguments): redacted, large ones as a preview, never in listings', async () => {
    const runs: unknown[] = [];
    registerSecret('sk-live-recorded-4242');
    const plain = createToolGateway({ env, approvalMode: 'full' });
    const recording = createToolGateway({
      env,
      approvalMode: 'full',
      executions: { recordArguments: true },
    });
    for (const gateway of [plain, recording]) {
      await as(alice, () =>
        gateway.invoke(
          noteTool(runs),
          { text: 'key sk-live-recorded-4242 here' },
          { callId: 'c1' },
        ),
      );
      await as(alice, () =>
        gateway.invoke(noteTool(runs), { text: 'y'.repeat(40_000) }, { callId: 'c2' }),
      );
    }
    const detail = async (gateway: typeof plain, callId: string) => {
      const { items } = await as(alice, () => gateway.executions());
      expect(JSON.stringify(items)).not.toMatch(/arguments|argumentsJson|yyyy/);
      return as(alice, () => gateway.execution(items.find((item) => item.callId === callId)!.id));
    };
    expect(await detail(plain, 'c1')).not.toHaveProperty('arguments');
    const kept = await detail(recording, 'c1');
    expect(kept?.arguments).toEqual({ text: 'key [REDACTED] here' });
    const large = await detail(recording, 'c2');
    expect(large).not.toHaveProperty('arguments');
    expect(large?.argumentsPreview).toMatch(/^\{"text":"y+…$/);
    expect(large!.argumentsPreview!.length).toBeLessThanOrEqual(16 * 1024 + 1);
    expect(() =>
      createToolGateway({ env, executions: { recordArguments: 'yes' as never } }),
    ).toThrowError(/recordArguments must be true or false/);
  });

  it('calls without a call id are recorded and make room like any other, beside named ones', async () => {
    const runs: unknown[] = [];
    const store = createInMemoryExecutionStore({ quotas: { perSession: 10 } });
    const gateway = createToolGateway({ env, approvalMode: 'full', executions: { store } });
    const tool = noteTool(runs);
    await as(alice, async () => {
      await gateway.invoke(tool, { text: 'named' }, { callId: 'n1' });
      for (let index = 0; index < 25; index += 1) await gateway.invoke(tool, { text: `u${index}` });
    });
    const { items } = await as(alice, () => gateway.executions({ limit: 50 }));
    expect(items.length).toBeLessThanOrEqual(10);
    expect(items.every((item) => item.outcome === 'succeeded' && !item.callIdGiven)).toBe(true);
    expect(new Set(items.map((item) => item.callId)).size).toBe(items.length);
    // The named call's record made room too: its replay now runs again, as a new call.
    expect(
      await as(alice, () => gateway.invoke(tool, { text: 'named' }, { callId: 'n1' })),
    ).toMatchObject({
      ok: true,
      run: 27,
    });
    expect(runs).toHaveLength(27);
  });

  it('a session full of running calls refuses the next (nothing runs) without touching another account', {
    timeout: 5_000,
  }, async () => {
    const runs: unknown[] = [];
    const store = createInMemoryExecutionStore({ quotas: { perSession: 2 } });
    const gateway = createToolGateway({ env, approvalMode: 'full', executions: { store } });
    const hang = noteTool(runs, 'hang');
    const running = as(alice, () =>
      Promise.all([
        gateway.invoke(hang, { text: '1' }, { callId: 'h1' }),
        gateway.invoke(hang, { text: '2' }, { callId: 'h2' }),
      ]),
    );
    const third = await as(alice, () => gateway.invoke(hang, { text: '3' }, { callId: 'h3' }));
    expect(third).toMatchObject({ ok: false, error_type: 'execution_quota_exceeded' });
    expect(await as(mallory, () => gateway.invoke(noteTool(runs), { text: 'm' }))).toMatchObject({
      ok: true,
    });
    await running;
    expect(runs).toEqual(['1', '2', 'm']);
  });

  it('a store that fails before the run answers store_unavailable and runs nothing; one that fails after keeps the result', async () => {
    const runs: unknown[] = [];
    const inner = createInMemoryExecutionStore();
    const down = createToolGateway({
      env,
      approvalMode: 'full',
      executions: {
        store: {
          ...inner,
          begin: () => Promise.reject(new Error('connect ECONNREFUSED 10.0.0.7:6379')),
        },
      },
    });
    const refused = await down.invoke(noteTool(runs), { text: 'a' });
    expect(refused).toMatchObject({ ok: false, error_type: 'store_unavailable' });
    expect(String(refused['error_message'])).not.toContain('10.0.0.7');
    const errors: string[] = [];
    const late = createToolGateway({
      env,
      approvalMode: 'full',
      hooks: { onHookError: (_error, hook) => errors.push(hook) },
      executions: {
        store: { ...inner, complete: () => Promise.reject(new Error('gone')) },
      },
    });
    expect(await late.invoke(noteTool(runs), { text: 'b' })).toMatchObject({ ok: true });
    expect(errors).toEqual(['executionStore']);
    expect(runs).toEqual(['b']);
  });

  it('hostile call ids (__proto__, 64 KiB, another session) stay one call each, and a replay echoes no secret', async () => {
    const runs: unknown[] = [];
    const secret = 'sk-live-execution-0123456789abcdef';
    registerSecret(secret);
    const leaky = defineTool({
      name: 'leaky',
      description: 'Returns a secret it should not.',
      input: z.object({ n: z.number() }),
      execute: ({ n }) => {
        runs.push(n);
        return { ok: true, token: secret };
      },
    });
    const gateway = createToolGateway({ env, approvalMode: 'full' });
    const huge = 'x'.repeat(64 * 1024);
    await as(alice, async () => {
      for (const callId of ['__proto__', 'constructor', huge]) {
        await gateway.invoke(leaky, { n: 1 }, { callId });
        const replay = await gateway.invoke(leaky, { n: 1 }, { callId });
        expect(replay).toMatchObject({ ok: true, replayed: true });
        expect(JSON.stringify(replay)).not.toContain(secret);
        const conflict = await gateway.invoke(leaky, { n: 2 }, { callId });
        expect(conflict).toMatchObject({ error_type: 'call_id_conflict' });
        expect(String(conflict['error_message']).length).toBeLessThan(400);
      }
    });
    // The same call id in another session of the same account is another call.
    await as({ ...alice, sessionId: 's2' }, () =>
      gateway.invoke(leaky, { n: 1 }, { callId: '__proto__' }),
    );
    expect(runs).toEqual([1, 1, 1, 1]);
  });

  it('duplicates that arrive while the first delivery runs get its result, failed or not, and none runs again', async () => {
    const runs: unknown[] = [];
    const gateway = createToolGateway({ env, approvalMode: 'full' });
    const failing = defineTool({
      name: 'flaky_write',
      description: 'Fails after a while.',
      input: z.object({ t: z.string() }),
      policy: { riskLevel: 'medium', sideEffects: ['notes_write'] },
      execute: async ({ t }) => {
        runs.push(t);
        await new Promise((resolve) => setTimeout(resolve, 20));
        return { ok: false, error_type: 'tool_error', error_message: 'disk full' };
      },
    });
    const results = await as(alice, () =>
      Promise.all(
        Array.from({ length: 6 }, () => gateway.invoke(failing, { t: 'a' }, { callId: 'f1' })),
      ),
    );
    expect(runs).toEqual(['a']);
    expect(results.map((result) => result['error_type'])).toEqual(Array(6).fill('tool_error'));
    expect(results.filter((result) => result['replayed'] === true)).toHaveLength(5);
    // A later delivery is a retry: it runs.
    await as(alice, () => gateway.invoke(failing, { t: 'a' }, { callId: 'f1' }));
    expect(runs).toEqual(['a', 'a']);
  });

  it('a duplicate waiting on a running call stops at its own abort, and a store that never answers costs a bounded wait', {
    timeout: 20_000,
  }, async () => {
    const gateway = createToolGateway({ env, approvalMode: 'full' });
    const slow = defineTool({
      name: 'slow_write',
      description: 'Takes a second.',
      input: z.object({}),
      policy: { riskLevel: 'medium', sideEffects: ['notes_write'] },
      execute: () => new Promise((resolve) => setTimeout(() => resolve({ ok: true }), 1_000)),
    });
    await as(alice, async () => {
      const first = gateway.invoke(slow, {}, { callId: 's1' });
      await new Promise((resolve) => setTimeout(resolve, 20));
      const started = performance.now();
      const duplicate = await gateway.invoke(
        slow,
        {},
        { callId: 's1', signal: AbortSignal.timeout(100) },
      );
      expect(performance.now() - started).toBeLessThan(800);
      expect(duplicate).toMatchObject({ error_type: 'outcome_unknown' });
      expect(await first).toMatchObject({ ok: true });
    });
    const hanging = createToolGateway({
      env,
      approvalMode: 'full',
      executions: {
        store: { ...createInMemoryExecutionStore(), begin: () => new Promise(() => undefined) },
      },
    });
    const started = performance.now();
    expect(await hanging.invoke(noteTool([]), { text: 'a' })).toMatchObject({
      error_type: 'store_unavailable',
    });
    expect(performance.now() - started).toBeLessThan(15_000);
  });

  it('a record outlives its call even with a short retention; a huge call id is kept as its hash; an explicit in-memory store keeps results inline', {
    timeout: 5_000,
  }, async () => {
    const runs: unknown[] = [];
    const store = createInMemoryExecutionStore();
    const gateway = createToolGateway({
      env,
      approvalMode: 'full',
      executions: { store, retentionMs: 1_000 },
    });
    const slow = defineTool({
      name: 'slow_write',
      description: 'Takes 1.3 s.',
      input: z.object({}),
      policy: { riskLevel: 'medium', sideEffects: ['notes_write'] },
      execute: async () => {
        runs.push(1);
        await new Promise((resolve) => setTimeout(resolve, 1_300));
        return { ok: true };
      },
    });
    const huge = 'y'.repeat(100_000);
    await as(alice, async () => {
      const first = gateway.invoke(slow, {}, { callId: huge });
      await new Promise((resolve) => setTimeout(resolve, 1_100));
      expect(await gateway.invoke(slow, {}, { callId: huge })).toMatchObject({
        ok: true,
        replayed: true,
      });
      await first;
      const [record] = (await gateway.executions()).items;
      expect(record?.callId).toMatch(/^sha256:[0-9a-f]{64}$/);
      expect(record!.expiresAt).toBeGreaterThan(record!.deadlineAt);
      expect(store.get(record!.id)).toMatchObject({ resultJson: expect.any(String) });
    });
    expect(runs).toEqual([1]);
  });

  it('refuses bad execution options', () => {
    expect(() => createToolGateway({ env, executions: { results: 'disk' as never } })).toThrow(
      /inline' or 'files/,
    );
    expect(() => createToolGateway({ env, executions: { retentionMs: 10 } })).toThrow(/1000/);
    expect(() => createToolGateway({ env, executions: { stores: 1 } as never })).toThrow(/stores/);
  });
});
