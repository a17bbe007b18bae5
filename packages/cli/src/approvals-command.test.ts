import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import {
  createToolGateway,
  defineTool,
  isApprovalRequired,
  runWithInvocationContext,
  sharedStoresFromEnv,
  waitForApprovalDecision,
} from '@ksadk/core';
import { expect, it } from 'vitest';
import { z } from 'zod';
import { describeWithStores, KSADK, ksadk, services } from './test-fixtures/run-ksadk.js';

const SECRET = 'the-one-secret-every-instance-shares';
const write = defineTool({
  name: 'send_invoice',
  description: 'Sends an invoice.',
  input: z.object({ to: z.string(), amount: z.number() }),
  policy: { riskLevel: 'high', sideEffects: ['email_send'] },
  execute: ({ to, amount }) => ({ ok: true, to, amount }),
});

/** An instance's gateway on the store, and requests made there by two accounts. */
async function instance(url: string) {
  const env = { KSADK_APPROVAL_STORE: url, KSADK_APPROVAL_SECRET: SECRET };
  const stores = (await sharedStoresFromEnv(env))!;
  const gateway = createToolGateway({
    env,
    approvalStore: stores.approvalStore,
    executions: { store: stores.executionStore },
  });
  const acme = `acme-${randomUUID()}`;
  const other = `other-${randomUUID()}`;
  const ask = async (accountId: string, args: { to: string; amount: number }, callId: string) => {
    const result = await runWithInvocationContext(
      { accountId, userId: 'ann', sessionId: 's1' },
      () => gateway.invoke(write, args, { callId }),
    );
    if (!isApprovalRequired(result)) throw new Error('it did not ask');
    return result.approval_request.id;
  };
  return { env, stores, gateway, acme, other, ask };
}

describeWithStores('ksadk approvals on the shared stores', () => {
  for (const store of ['redis', 'postgres'] as const) {
    it(`lists, shows, approves (edited), rejects, revokes and audits as the flags' principal (${store})`, {
      timeout: 90_000,
    }, async () => {
      const url = store === 'redis' ? services.redisUrl : services.postgresUrl;
      const { stores, gateway, acme, other, ask } = await instance(url);
      try {
        const first = await ask(acme, { to: 'acme', amount: 120 }, 'c1');
        const second = await ask(acme, { to: 'acme', amount: 999 }, 'c2');
        const theirs = await ask(other, { to: 'rival', amount: 5 }, 'c3');
        const flags = ['--store', url, '--account', acme];
        const listed = await ksadk(['approvals', 'list', ...flags, '--json'], {
          env: { KSADK_APPROVAL_SECRET: SECRET },
        });
        expect(listed.code).toBe(0);
        const list = JSON.parse(listed.stdout) as { principal: string; items: { id: string }[] };
        expect(list.principal).toBe(`account ${acme}`);
        expect(list.items.map((item) => item.id).sort()).toEqual([first, second].sort());
        expect(listed.stdout).not.toContain(theirs);
        // Text: says who is looking, on which store; one line per request.
        const text = await ksadk(['approvals', 'list', ...flags], {
          env: { KSADK_APPROVAL_SECRET: SECRET },
        });
        expect(text.stderr).toContain(`as account ${acme}, on the ${store} store`);
        expect(text.stdout.trim().split('\n')).toHaveLength(2);
        // Another account's request is not there for this one.
        const notMine = await ksadk(['approvals', 'approve', theirs, ...flags], {
          env: { KSADK_APPROVAL_SECRET: SECRET },
        });
        expect(notMine.code).toBe(1);
        expect(notMine.stderr).toContain(`No request ${theirs}`);
        // The admin view says so, and sees every account.
        const admin = await ksadk(['approvals', 'list', '--store', url, '--admin', '--json'], {
          env: { KSADK_APPROVAL_SECRET: SECRET },
        });
        const all = JSON.parse(admin.stdout) as { principal: string; items: { id: string }[] };
        expect(all.principal).toBe('admin (every account)');
        expect(all.items.map((item) => item.id)).toEqual(
          expect.arrayContaining([first, second, theirs]),
        );

        const shown = await ksadk(['approvals', 'show', first, ...flags], {
          env: { KSADK_APPROVAL_SECRET: SECRET },
        });
        expect(shown.stdout).toContain('"amount": 120');
        const edited = await ksadk(
          [
            'approvals',
            'approve',
            first,
            ...flags,
            '--args',
            '{"to":"acme","amount":100}',
            '--reason',
            'agreed discount',
            '--json',
          ],
          { env: { KSADK_APPROVAL_SECRET: SECRET } },
        );
        expect(edited.code).toBe(0);
        expect(JSON.parse(edited.stdout).item).toMatchObject({
          status: 'approved',
          edited_arguments: { to: 'acme', amount: 100 },
        });
        // What the instance sees: the edit runs once; then a rejection (with a standing one) refuses.
        const context = { accountId: acme, userId: 'ann', sessionId: 's1' };
        const ran = await runWithInvocationContext(context, async () => {
          // The instance takes up the decision made on the command line, with its edit.
          const decision = await waitForApprovalDecision(gateway, first, { waitMs: 5000 });
          if (typeof decision === 'string' || decision.type !== 'approve')
            throw new Error(`${decision}`);
          const grant = await gateway.approve(
            first,
            decision.args ? { args: decision.args, tool: write } : {},
          );
          return gateway.invoke(
            write,
            { to: 'acme', amount: 120 },
            { callId: 'c1', approval: grant },
          );
        });
        expect(ran).toMatchObject({ ok: true, amount: 100 });
        const rejected = await ksadk(
          ['approvals', 'reject', second, ...flags, '--reason', 'too much', '--always'],
          {
            env: { KSADK_APPROVAL_SECRET: SECRET },
          },
        );
        expect(rejected.code).toBe(0);
        const refused = await runWithInvocationContext(context, () =>
          gateway.invoke(write, { to: 'acme', amount: 999 }, { callId: 'c2' }),
        );
        expect(refused).toMatchObject({ ok: false, error_type: 'approval_rejected' });
        const grants = await gateway.listStandingGrants({ principal: { accountId: acme } });
        expect(grants.items).toHaveLength(1);
        const revoked = await ksadk(['approvals', 'revoke', grants.items[0]!.id, ...flags], {
          env: { KSADK_APPROVAL_SECRET: SECRET },
        });
        expect(revoked.code).toBe(0);
        expect(revoked.stdout).toContain(`revoked ${grants.items[0]!.id} (send_invoice)`);
        const audit = await ksadk(['approvals', 'audit', ...flags, '--json'], {
          env: { KSADK_APPROVAL_SECRET: SECRET },
        });
        const events = (
          JSON.parse(audit.stdout) as { items: { event: string; how?: string; reason?: string }[] }
        ).items;
        expect(events.map((entry) => entry.event)).toEqual(
          expect.arrayContaining(['requested', 'approved', 'rejected', 'used', 'revoked']),
        );
        expect(events).toContainEqual(
          expect.objectContaining({ event: 'approved', how: 'edited', reason: 'agreed discount' }),
        );
      } finally {
        await stores.close();
      }
    });
  }

  it('usage and store problems: no store (exit 1), --admin with --account (exit 2), bad --args (exit 2), a bad URL never printed', {
    timeout: 60_000,
  }, async () => {
    const none = await ksadk(['approvals', 'list']);
    expect(none.code).toBe(1);
    expect(none.stderr).toContain('No shared store');
    expect(
      (
        await ksadk([
          'approvals',
          'list',
          '--admin',
          '--account',
          'x',
          '--store',
          services.redisUrl,
        ])
      ).code,
    ).toBe(2);
    expect(
      (
        await ksadk([
          'approvals',
          'approve',
          'appr_x',
          '--args',
          '[1]',
          '--store',
          services.redisUrl,
        ])
      ).code,
    ).toBe(2);
    const bad = await ksadk(['approvals', 'list', '--store', 'mysql://u:hunter2-pw@h/db']);
    expect(bad.code).toBe(1);
    expect(bad.stderr + bad.stdout).not.toContain('hunter2-pw');
  });

  it('ksadk console starts the console on the store and prints where to open it', {
    timeout: 60_000,
  }, async () => {
    const child = spawn(
      process.execPath,
      [KSADK, 'console', '--store', services.redisUrl, '--admin'],
      {
        env: { PATH: process.env['PATH'] ?? '', KSADK_APPROVAL_SECRET: SECRET },
      },
    );
    try {
      let output = '';
      const url = await new Promise<string>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`no address: ${output}`)), 30_000);
        child.stdout.on('data', (chunk) => {
          output += chunk;
          const found =
            /KsADK console, as admin \(every account\): (http:\/\/127\.0\.0\.1:\d+\/[\w-]+\/\?token=[\w-]+)/.exec(
              output,
            );
          if (found) {
            clearTimeout(timer);
            resolve(found[1]!);
          }
        });
      });
      const base = url.split('?')[0]!;
      const token = url.split('token=')[1]!;
      const inbox = await fetch(`${base}api/approvals?status=all`, {
        headers: { authorization: `Bearer ${token}` },
      });
      expect(inbox.status).toBe(200);
    } finally {
      child.kill('SIGTERM');
    }
  });
});
