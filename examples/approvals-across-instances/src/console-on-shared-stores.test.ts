import { type ChildProcess, spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  createToolGateway,
  defineTool,
  isApprovalRequired,
  runWithInvocationContext,
  sharedStoresFromEnv,
} from '@ksadk/core';
import { afterAll, expect, it } from 'vitest';
import { z } from 'zod';
import { describeWithServices, services } from './test-services.js';

// `ksadk-console`, started as a user starts it (the installed command, a child process), on the
// Redis or PostgreSQL stores an agent's instance shares: it sees that instance's pending request
// and calls, and its decision reaches the instance.
const command = path.join(
  path.dirname(fileURLToPath(import.meta.url)),
  '..',
  'node_modules',
  '.bin',
  'ksadk-console',
);
const SECRET = 'the-one-secret-every-instance-shares';
const children: ChildProcess[] = [];
afterAll(() => {
  for (const child of children) child.kill('SIGTERM');
});

/** Starts `ksadk-console` with these arguments; resolves with its address and token. */
function startConsole(env: Record<string, string>, args: string[] = []) {
  const child = spawn(command, args, {
    env: { PATH: process.env['PATH'] ?? '', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.push(child);
  let output = '';
  return new Promise<{ base: string; token: string; output: () => string }>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no address within 20 s: ${output}`)), 20_000);
    const read = (chunk: Buffer) => {
      output += chunk.toString();
      const url = /KsADK console: (http:\/\/127\.0\.0\.1:\d+\/(?:[\w-]+\/)?)\?token=([\w-]+)/.exec(
        output,
      );
      if (url) {
        clearTimeout(timer);
        resolve({ base: url[1]!, token: url[2]!, output: () => output });
      }
    };
    child.stdout?.on('data', read);
    child.stderr?.on('data', read);
    child.once('exit', (code) => reject(new Error(`ksadk-console exited (${code}): ${output}`)));
  });
}

const sendInvoice = (sent: string[]) =>
  defineTool({
    name: 'send_invoice',
    description: 'Sends an invoice.',
    input: z.object({ to: z.string(), amount: z.number() }),
    policy: { riskLevel: 'high', sideEffects: ['email_send'] },
    execute: ({ to, amount }) => {
      sent.push(`${to}:${amount}`);
      return { ok: true, to, amount };
    },
  });

describeWithServices('ksadk-console on the shared stores', ['redis', 'postgres'], () => {
  for (const store of ['redis', 'postgres'] as const) {
    it(`sees and decides an instance's request, and lists its calls (${store})`, {
      timeout: 120_000,
    }, async () => {
      const env = {
        KSADK_APPROVAL_STORE: store === 'redis' ? services.redisUrl : services.postgresUrl,
        KSADK_APPROVAL_SECRET: SECRET,
      };
      // The agent's instance: a gateway on the shared stores.
      const stores = (await sharedStoresFromEnv(env))!;
      expect(stores.kind).toBe(store);
      const sent: string[] = [];
      const tool = sendInvoice(sent);
      const gateway = createToolGateway({
        env,
        approvalStore: stores.approvalStore,
        executions: { store: stores.executionStore },
      });
      const account = `acct-${randomUUID()}`;
      const context = { accountId: account, userId: 'ann', sessionId: 's1' };
      const asked = await runWithInvocationContext(context, () =>
        gateway.invoke(tool, { to: 'acme', amount: 120 }, { callId: 'call-1' }),
      );
      if (!isApprovalRequired(asked)) throw new Error('the invoice did not ask');
      try {
        // The operator's console, on the same stores, as that account.
        const { base, token } = await startConsole(env, ['--account', account]);
        const auth = { authorization: `Bearer ${token}` };
        const inbox = (await (await fetch(`${base}api/approvals`, { headers: auth })).json()) as {
          items: { id: string; tool_name: string }[];
        };
        expect(inbox.items.map((item) => [item.id, item.tool_name])).toEqual([
          [asked.approval_request.id, 'send_invoice'],
        ]);
        const page = await (await fetch(base, { headers: auth })).text();
        const csrf = /name="ksadk-csrf" content="([^"]+)"/.exec(page)![1]!;
        const approved = await fetch(`${base}api/approvals/${asked.approval_request.id}/approve`, {
          method: 'POST',
          headers: { ...auth, 'content-type': 'application/json', 'x-ksadk-csrf': csrf },
          body: JSON.stringify({ reason: 'checked the amount' }),
        });
        expect(approved.status).toBe(200);
        // The instance resumes with the decision the console made: it runs once.
        const ran = await runWithInvocationContext(context, async () => {
          const grant = await gateway.approve(asked.approval_request.id);
          return gateway.invoke(
            tool,
            { to: 'acme', amount: 120 },
            { callId: 'call-1', approval: grant },
          );
        });
        expect(ran).toMatchObject({ ok: true, to: 'acme' });
        expect(sent).toEqual(['acme:120']);
        const calls = (await (await fetch(`${base}api/calls`, { headers: auth })).json()) as {
          items: { id: string; toolName: string; outcome: string; approvalId?: string }[];
        };
        expect(calls.items).toEqual([
          expect.objectContaining({
            toolName: 'send_invoice',
            outcome: 'succeeded',
            approvalId: asked.approval_request.id,
          }),
        ]);
        const call = (await (
          await fetch(`${base}api/calls/${calls.items[0]!.id}`, { headers: auth })
        ).json()) as { trail: { event: string }[] };
        expect(call.trail.map((entry) => entry.event)).toEqual(['requested', 'approved', 'used']);
        // Without --account it shows the default account, which has none of this.
        const other = await startConsole(env);
        const empty = (await (
          await fetch(`${other.base}api/approvals?status=all`, {
            headers: { authorization: `Bearer ${other.token}` },
          })
        ).json()) as { items: unknown[] };
        expect(empty.items).toEqual([]);
      } finally {
        await stores.close();
      }
    });
  }

  it('refuses bad flags with usage (exit 2) and explains a missing store', {
    timeout: 60_000,
  }, async () => {
    const run = (args: string[], env: Record<string, string> = {}) =>
      new Promise<{ code: number | null; output: string }>((resolve) => {
        const child = spawn(command, args, { env: { PATH: process.env['PATH'] ?? '', ...env } });
        let output = '';
        child.stdout.on('data', (chunk) => {
          output += chunk;
        });
        child.stderr.on('data', (chunk) => {
          output += chunk;
        });
        child.on('exit', (code) => resolve({ code, output }));
      });
    expect(await run(['--nope'])).toMatchObject({
      code: 2,
      output: expect.stringMatching(/Unknown option '--nope'/),
    });
    expect(await run(['--admin', '--account', 'x'])).toMatchObject({ code: 2 });
    expect(await run(['--port', 'http'])).toMatchObject({ code: 2 });
    expect(await run(['--help'])).toMatchObject({
      code: 0,
      output: expect.stringContaining('--store URL'),
    });
    const bad = await run([], { KSADK_APPROVAL_STORE: 'mysql://u:hunter2@h/db' });
    expect(bad.code).toBe(1);
    expect(bad.output).toMatch(/^ksadk-console: KSADK_APPROVAL_STORE must be memory, a redis:/);
    expect(bad.output).not.toContain('hunter2');
    const { output } = await startConsole({});
    expect(output()).toMatch(/No shared store/);
  });
});
