import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  type InvocationContext,
  runWithInvocationContext,
} from '../../context/invocation-context.js';
import { defineTool } from '../../tool/define-tool.js';
import type { ToolPolicyInput } from '../../tool/policy.js';
import { createToolGateway } from '../create-tool-gateway.js';
import type { ToolGateway } from '../gateway-types.js';
import { isApprovalRequired, type ToolResult } from '../results.js';
import type { StandingGrant } from './standing-grant.js';
import { createInMemoryApprovalStore } from './store.js';

const env = {} as NodeJS.ProcessEnv;

function writeTool(runs: unknown[], policy: ToolPolicyInput = {}, name = 'write_file') {
  return defineTool({
    name,
    description: 'Writes a file.',
    input: z.object({ path: z.string(), text: z.string() }),
    policy: { riskLevel: 'medium', sideEffects: ['workspace_write'], ...policy },
    execute: (input) => {
      runs.push(input);
      return { ok: true, path: input.path };
    },
  });
}

const alice: InvocationContext = { accountId: 'acct-a', userId: 'alice', sessionId: 's1' };
const as = <T>(context: InvocationContext, fn: () => Promise<T>): Promise<T> =>
  runWithInvocationContext(context, fn);

const idOf = (result: ToolResult): string => {
  if (!isApprovalRequired(result))
    throw new Error(`expected approval_required, got ${JSON.stringify(result)}`);
  return result.approval_request.id;
};

/** Asks once in `context`, approves with `decision`, runs the approved call; returns the grant id. */
async function allowAlways(
  gateway: ToolGateway,
  tool: ReturnType<typeof writeTool>,
  context: InvocationContext,
  decision: Parameters<ToolGateway['approve']>[1],
): Promise<string> {
  return as(context, async () => {
    const first = await gateway.invoke(tool, { path: 'a.md', text: '0' });
    const grant = await gateway.approve(idOf(first), decision);
    expect(
      await gateway.invoke(tool, { path: 'a.md', text: '0' }, { approval: grant }),
    ).toMatchObject({ ok: true });
    return grant.standingGrantId!;
  });
}

describe('standing grants', () => {
  it('"always for this session" lets the next three calls through; another session asks; revoking asks again', async () => {
    const runs: unknown[] = [];
    const tool = writeTool(runs);
    const gateway = createToolGateway({ env });
    const grantId = await allowAlways(gateway, tool, alice, { always: 'session' });
    expect(grantId).toMatch(/^sgr_[0-9a-f]{32}$/);
    await as(alice, async () => {
      for (const text of ['1', '2', '3'])
        expect(await gateway.invoke(tool, { path: `${text}.md`, text })).toMatchObject({
          ok: true,
        });
    });
    expect(runs).toHaveLength(4);
    expect(
      isApprovalRequired(
        await as({ ...alice, sessionId: 's2' }, () =>
          gateway.invoke(tool, { path: 'x', text: 'x' }),
        ),
      ),
    ).toBe(true);
    const listed = await as(alice, () => gateway.listStandingGrants());
    expect(listed.items.map((grant) => [grant.id, grant.scope, grant.effect])).toEqual([
      [grantId, 'session', 'allow'],
    ]);
    await as(alice, () => gateway.revokeStandingGrant(grantId));
    expect(
      isApprovalRequired(await as(alice, () => gateway.invoke(tool, { path: 'y', text: 'y' }))),
    ).toBe(true);
    expect(runs).toHaveLength(4);
    const audit = await as(alice, () => gateway.auditLog({ limit: 100 }));
    const used = audit.items.filter(
      (entry) => entry.event === 'used' && entry.how === 'standing_grant',
    );
    expect(used).toHaveLength(3);
    expect(used.every((entry) => entry.grantId === grantId)).toBe(true);
    expect(
      audit.items.some((entry) => entry.event === 'revoked' && entry.grantId === grantId),
    ).toBe(true);
  });

  it('"always for this user" covers the user\'s other sessions, not another user or account', async () => {
    const runs: unknown[] = [];
    const tool = writeTool(runs);
    const gateway = createToolGateway({ env });
    await allowAlways(gateway, tool, alice, { always: 'user' });
    const call = (context: InvocationContext) =>
      as(context, () => gateway.invoke(tool, { path: 'p', text: String(Math.random()) }));
    expect(await call({ ...alice, sessionId: 's9' })).toMatchObject({ ok: true });
    expect(isApprovalRequired(await call({ ...alice, userId: 'bob' }))).toBe(true);
    expect(isApprovalRequired(await call({ ...alice, accountId: 'acct-b' }))).toBe(true);
    expect(
      isApprovalRequired(await call({ accountId: 'acct-b', userId: 'alice', sessionId: 's1' })),
    ).toBe(true);
  });

  it('covers only the tool it was made for, and only calls that match', async () => {
    const runs: unknown[] = [];
    const tool = writeTool(runs);
    const other = writeTool(runs, {}, 'delete_file');
    const gateway = createToolGateway({ env });
    await allowAlways(gateway, tool, alice, {
      always: 'session',
      match: { path: { pathPrefix: 'docs/' }, text: { equals: 'ok' } },
    });
    const call = (path: string, text = 'ok', which = tool) =>
      as(alice, () => gateway.invoke(which, { path, text }));
    expect(await call('docs/a.md')).toMatchObject({ ok: true });
    expect(await call('docs/deep/b.md')).toMatchObject({ ok: true });
    for (const outside of [
      'docs/../secrets.env',
      'docs2/a.md',
      '/docs/a.md',
      'docsa',
      '../docs/a.md',
    ])
      expect(isApprovalRequired(await call(outside))).toBe(true);
    expect(isApprovalRequired(await call('docs/a.md', 'not ok'))).toBe(true);
    expect(isApprovalRequired(await call('docs/a.md', 'ok', other))).toBe(true);
  });

  it('ends at its expiry', async () => {
    const tool = writeTool([]);
    const gateway = createToolGateway({ env });
    await allowAlways(gateway, tool, alice, { always: 'session', until: Date.now() + 300 });
    expect(await as(alice, () => gateway.invoke(tool, { path: 'b', text: 'b' }))).toMatchObject({
      ok: true,
    });
    await new Promise((resolve) => setTimeout(resolve, 400));
    expect(
      isApprovalRequired(await as(alice, () => gateway.invoke(tool, { path: 'c', text: 'c' }))),
    ).toBe(true);
  });

  it('a standing rejection refuses the next calls without asking', async () => {
    const runs: unknown[] = [];
    const tool = writeTool(runs);
    const gateway = createToolGateway({ env });
    await as(alice, async () => {
      const id = idOf(await gateway.invoke(tool, { path: 'a', text: 'a' }));
      await gateway.reject(id, { always: 'session', reason: 'never in this chat' });
      const next = await gateway.invoke(tool, { path: 'b', text: 'b' });
      expect(next).toMatchObject({
        error_type: 'approval_rejected',
        reason: expect.stringContaining('never in this chat'),
      });
      expect((await gateway.listApprovalRequests()).items).toEqual([]);
    });
    expect(runs).toEqual([]);
  });

  it('never covers an "always ask" or critical tool unless its definition allows it', async () => {
    const gateway = createToolGateway({ env });
    for (const policy of [{ requiresApproval: true }, { riskLevel: 'critical' as const }]) {
      const tool = writeTool([], policy, `t_${Math.random().toString(36).slice(2, 8)}`);
      await as(alice, async () => {
        const id = idOf(await gateway.invoke(tool, { path: 'a', text: 'a' }));
        await expect(gateway.approve(id, { always: 'session' })).rejects.toMatchObject({
          code: 'standing_grant_not_allowed',
        });
        // The request is still pending and can be approved once.
        await gateway.approve(id);
      });
      const allowed = writeTool(
        [],
        { ...policy, allowStandingGrants: true },
        `u_${Math.random().toString(36).slice(2, 8)}`,
      );
      await allowAlways(gateway, allowed, alice, { always: 'session' });
      expect(
        await as(alice, () => gateway.invoke(allowed, { path: 'b', text: 'b' })),
      ).toMatchObject({ ok: true });
    }
  });

  it('a replay of a call a standing grant let through does not run it again', async () => {
    const runs: unknown[] = [];
    const tool = writeTool(runs);
    const gateway = createToolGateway({ env });
    await allowAlways(gateway, tool, alice, { always: 'session' });
    await as(alice, async () => {
      expect(
        await gateway.invoke(tool, { path: 'r', text: 'r' }, { callId: 'call-r' }),
      ).toMatchObject({ ok: true });
      expect(
        await gateway.invoke(tool, { path: 'r', text: 'r' }, { callId: 'call-r' }),
      ).toMatchObject({ ok: true, path: 'r', replayed: true });
    });
    expect(runs).toHaveLength(2);
  });

  it('refuses bad standing decisions', async () => {
    const tool = writeTool([]);
    const gateway = createToolGateway({ env });
    await as(alice, async () => {
      const id = idOf(await gateway.invoke(tool, { path: 'a', text: 'a' }));
      for (const decision of [
        { always: 'forever' as never },
        { always: 'session' as const, until: Date.now() - 1 },
        { always: 'session' as const, match: { path: { regex: '.*' } } as never },
        { always: 'session' as const, match: JSON.parse('{"__proto__":{"equals":1}}') },
        { until: Date.now() + 1000 },
      ])
        await expect(gateway.approve(id, decision)).rejects.toMatchObject({
          code: 'invalid_arguments',
        });
      expect((await gateway.listStandingGrants()).items).toEqual([]);
    });
  });

  it('cannot be revoked, listed or used by another account', async () => {
    const tool = writeTool([]);
    const gateway = createToolGateway({ env });
    const grantId = await allowAlways(gateway, tool, alice, { always: 'session' });
    const mallory = { accountId: 'acct-m', userId: 'alice', sessionId: 's1' };
    await as(mallory, async () => {
      expect((await gateway.listStandingGrants()).items).toEqual([]);
      await expect(gateway.revokeStandingGrant(grantId)).rejects.toMatchObject({
        code: 'standing_grant_not_found',
      });
      await expect(gateway.revokeStandingGrant('sgr_forged')).rejects.toMatchObject({
        code: 'standing_grant_not_found',
      });
    });
    expect(await as(alice, () => gateway.invoke(tool, { path: 'q', text: 'q' }))).toMatchObject({
      ok: true,
    });
    expect((await gateway.listStandingGrants({ principal: { admin: true } })).items).toHaveLength(
      1,
    );
  });

  it('10,000 standing grants from one account hit its quota and leave every other account alone', {
    timeout: 20_000,
  }, async () => {
    const store = createInMemoryApprovalStore({ standingGrants: { perAccount: 1000 } });
    const now = Date.now();
    const grant = (accountId: string, index: number): StandingGrant => ({
      id: `sgr_${index.toString(16).padStart(32, '0')}`,
      effect: 'allow',
      scope: 'session',
      accountId,
      userId: '',
      sessionId: 's',
      toolName: `t${index}`,
      createdAt: now,
      expiresAt: now + 60_000,
      approvalId: 'appr_x',
      decidedBy: 'account:x',
    });
    let refused = 0;
    for (let index = 0; index < 10_000; index += 1) {
      try {
        await store.saveStandingGrant(grant('acct-a', index));
      } catch (error) {
        expect(error).toMatchObject({ code: 'approval_quota_exceeded' });
        refused += 1;
      }
    }
    expect(refused).toBe(9_000);
    await store.saveStandingGrant({
      ...grant('acct-b', 20_000),
      id: 'sgr_bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb',
    });
    expect(
      await store.findStandingGrants({ accountId: 'acct-b', toolName: 't20000', now }),
    ).toHaveLength(1);
    // Through the gateway: an account at its quota is told, and still gets this call approved once.
    const gateway = createToolGateway({ env, approvalStore: store });
    const tool = writeTool([]);
    await as({ accountId: 'acct-a', sessionId: 's' }, async () => {
      const id = idOf(await gateway.invoke(tool, { path: 'a', text: 'a' }));
      await expect(gateway.approve(id, { always: 'session' })).rejects.toMatchObject({
        code: 'approval_quota_exceeded',
      });
      expect(await gateway.approve(id)).toMatchObject({ approvalId: id });
    });
    await allowAlways(
      gateway,
      tool,
      { accountId: 'acct-b', sessionId: 's' },
      { always: 'session' },
    );
  });
});
