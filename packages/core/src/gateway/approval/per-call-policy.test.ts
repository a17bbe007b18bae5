import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { runWithInvocationContext } from '../../context/invocation-context.js';
import { defineTool } from '../../tool/define-tool.js';
import type { ToolPolicyInput } from '../../tool/policy.js';
import { createToolGateway } from '../create-tool-gateway.js';
import { isApprovalRequired } from '../results.js';

const env = {} as NodeJS.ProcessEnv;

function payTool(policy: ToolPolicyInput, runs: unknown[] = []) {
  return defineTool({
    name: 'pay',
    description: 'Pays an amount.',
    input: z.object({ amount: z.number(), to: z.string() }),
    policy: { sideEffects: ['payment'], ...policy },
    describeCall: (args) => `Pay ${String(args['amount'])} € to ${String(args['to'])}`,
    execute: (input) => {
      runs.push(input);
      return { ok: true, paid: input.amount };
    },
  });
}

describe('a policy decided per call', () => {
  it('lets a small payment through and asks for a large one, saying why', async () => {
    const runs: unknown[] = [];
    const seen: unknown[] = [];
    const tool = payTool(
      {
        riskLevel: (args) =>
          Number(args['amount']) > 1000
            ? { riskLevel: 'high', reason: 'more than 1,000 €' }
            : 'low',
      },
      runs,
    );
    const gateway = createToolGateway({ env });
    await runWithInvocationContext({ accountId: 'acct', sessionId: 's' }, async () => {
      expect(await gateway.invoke(tool, { amount: 10, to: 'ACME' })).toEqual({
        ok: true,
        paid: 10,
      });
      const large = await gateway.invoke(tool, { amount: 10_000, to: 'ACME' });
      expect(isApprovalRequired(large)).toBe(true);
      if (!isApprovalRequired(large)) return;
      expect(large.approval_request).toMatchObject({
        risk_level: 'high',
        why: expect.stringContaining('more than 1,000 €'),
        summary: 'Pay 10000 € to ACME',
      });
      const listed = await gateway.listApprovalRequests();
      seen.push(...listed.items.map((item) => item.risk_level));
    });
    expect(runs).toEqual([{ amount: 10, to: 'ACME' }]);
    expect(seen).toEqual(['high']);
  });

  it('asks in full mode when the function says so, as a static true does', async () => {
    const tool = payTool({ requiresApproval: (args) => Number(args['amount']) > 100 });
    const gateway = createToolGateway({ env, approvalMode: 'full' });
    expect(await gateway.invoke(tool, { amount: 5, to: 'a' })).toEqual({ ok: true, paid: 5 });
    const result = await gateway.invoke(tool, { amount: 500, to: 'a' });
    expect(result).toMatchObject({ error_type: 'approval_required' });
  });

  it('calls each function once per call, with a copy it cannot change the call through', async () => {
    let calls = 0;
    const runs: unknown[] = [];
    const tool = payTool(
      {
        requiresApproval: (args) => {
          calls += 1;
          args['amount'] = 999_999; // must not reach the tool
          return false;
        },
      },
      runs,
    );
    const gateway = createToolGateway({ env });
    await gateway.invoke(tool, { amount: 1, to: 'a' });
    expect(calls).toBe(1);
    expect(runs).toEqual([{ amount: 1, to: 'a' }]);
  });

  it('gets the invocation context and the mode', async () => {
    const contexts: unknown[] = [];
    const tool = payTool({
      requiresApproval: (_args, context) => {
        contexts.push({
          account: context.invocation.accountId,
          mode: context.mode,
          tool: context.toolName,
        });
        return context.invocation.accountId !== 'trusted';
      },
    });
    const gateway = createToolGateway({ env });
    const trusted = await runWithInvocationContext({ accountId: 'trusted' }, () =>
      gateway.invoke(tool, { amount: 1, to: 'a' }),
    );
    const other = await runWithInvocationContext({ accountId: 'other' }, () =>
      gateway.invoke(tool, { amount: 1, to: 'a' }),
    );
    expect(trusted).toMatchObject({ ok: true });
    expect(other).toMatchObject({ error_type: 'approval_required' });
    expect(contexts).toEqual([
      { account: 'trusted', mode: 'risk', tool: 'pay' },
      { account: 'other', mode: 'risk', tool: 'pay' },
    ]);
  });
});

describe('a per-call policy that fails refuses the call', () => {
  const cases: [string, ToolPolicyInput, RegExp][] = [
    [
      'throws',
      {
        requiresApproval: () => {
          throw new Error('secret-token-123 in message');
        },
      },
      /threw/,
    ],
    ['rejects', { requiresApproval: async () => Promise.reject(new Error('no')) }, /threw/],
    ['answers a string', { requiresApproval: (() => 'yes') as never }, /answered "yes"/],
    [
      'answers an object without the field',
      { requiresApproval: (() => ({ ask: true })) as never },
      /answered/,
    ],
    [
      'answers an unknown risk',
      { riskLevel: (() => 'extreme') as never },
      /riskLevel function answered/,
    ],
    ['answers null', { riskLevel: (() => null) as never }, /answered null/],
  ];
  for (const [name, policy, message] of cases) {
    it(`when it ${name}: nothing runs, no approval is asked`, async () => {
      const runs: unknown[] = [];
      const gateway = createToolGateway({ env, approvalMode: 'full' });
      const result = await gateway.invoke(payTool(policy, runs), { amount: 1, to: 'a' });
      expect(result).toMatchObject({ ok: false, error_type: 'approval_policy_failed' });
      expect(String(result['error_message'])).toMatch(message);
      expect(String(result['error_message'])).not.toContain('secret-token-123');
      expect(runs).toEqual([]);
      expect((await gateway.listApprovalRequests({ status: 'all' })).items).toEqual([]);
    });
  }

  it('when it hangs: refused within the policy timeout', { timeout: 5_000 }, async () => {
    const runs: unknown[] = [];
    const gateway = createToolGateway({ env, policyTimeoutMs: 50 });
    const tool = payTool({ requiresApproval: () => new Promise<boolean>(() => {}) }, runs);
    const started = performance.now();
    const result = await gateway.invoke(tool, { amount: 1, to: 'a' });
    expect(performance.now() - started).toBeLessThan(1_000);
    expect(result).toMatchObject({ error_type: 'approval_policy_failed' });
    expect(String(result['error_message'])).toMatch(/longer than 50 ms/);
    expect(runs).toEqual([]);
  });

  it('a describeCall that throws or returns garbage leaves the request without a summary', async () => {
    const gateway = createToolGateway({ env });
    for (const describeCall of [
      () => {
        throw new Error('boom');
      },
      () => 42 as unknown as string,
      () => `x\u0000\u202e${'y'.repeat(5000)}`,
    ]) {
      const tool = defineTool({
        name: 'w',
        description: 'w',
        input: z.object({ a: z.string() }),
        policy: { riskLevel: 'high' },
        describeCall,
        execute: () => ({ ok: true }),
      });
      const result = await gateway.invoke(tool, { a: String(Math.random()) });
      if (!isApprovalRequired(result)) throw new Error('expected approval_required');
      const summary = result.approval_request.summary;
      expect(
        summary === undefined ||
          (summary.length <= 300 && !summary.includes('\u0000') && !summary.includes('\u202e')),
      ).toBe(true);
    }
  });
});
