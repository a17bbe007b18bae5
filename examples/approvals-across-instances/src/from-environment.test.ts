import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { isApprovalRequired, runWithInvocationContext } from '@ksadk/core';
import { loadOpenAITools } from '@ksadk/openai';
import { afterAll, expect, it } from 'vitest';
import { INVOICE_ARGS, invoiceTool } from './invoice-tool.js';
import { describeWithServices, services } from './test-services.js';

const { redisUrl, postgresUrl } = services;
const dir = mkdtempSync(path.join(tmpdir(), 'ksadk-from-env-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describeWithServices('stores named by the environment', ['redis', 'postgres'], () => {
  it('two loads configured only by KSADK_* variables share approvals (Redis) and memory (PostgreSQL)', async () => {
    const env = {
      KSADK_APPROVAL_STORE: redisUrl,
      KSADK_APPROVAL_SECRET: 'the-one-secret-every-instance-shares',
      KSADK_LTM_BACKEND: 'postgres',
      KSADK_LTM_URL: postgresUrl,
    };
    const sentLog = path.join(dir, 'sent.log');
    const load = () => loadOpenAITools({ env, tools: [invoiceTool(sentLog)] });
    const [a, b] = await Promise.all([load(), load()]);
    try {
      const byName = (tools: typeof a.tools, name: string) =>
        tools.find((tool) => tool.name === name)!;
      expect(a.tools.map((tool) => tool.name)).toEqual([
        'send_invoice',
        'load_memory',
        'save_memory',
      ]);
      const context = { accountId: `acct-${randomUUID()}`, userId: 'alice', sessionId: 's1' };
      await runWithInvocationContext(context, async () => {
        // Memory saved through A is found through B.
        // save_memory writes (medium risk): the user approves it through A like any gated call.
        const save = byName(a.tools, 'save_memory');
        const memo = { content: 'ACME pays in EUR within 30 days' };
        const askedSave = await a.gateway.invoke(save, memo);
        if (!isApprovalRequired(askedSave)) throw new Error('expected approval_required');
        const saveGrant = await a.gateway.approve(askedSave.approval_request.id);
        expect(await a.gateway.invoke(save, memo, { approval: saveGrant })).toMatchObject({
          ok: true,
        });
        const found = await b.gateway.invoke(byName(b.tools, 'load_memory'), {
          query: 'ACME payment terms',
        });
        expect(JSON.stringify(found)).toContain('ACME pays in EUR');
        // An approval asked through A is decided and consumed through B.
        const asked = await a.gateway.invoke(byName(a.tools, 'send_invoice'), INVOICE_ARGS, {
          callId: 'c1',
        });
        if (!isApprovalRequired(asked)) throw new Error('expected approval_required');
        const grant = await b.gateway.approve(asked.approval_request.id);
        expect(
          await b.gateway.invoke(byName(b.tools, 'send_invoice'), INVOICE_ARGS, {
            callId: 'c1',
            approval: grant,
          }),
        ).toMatchObject({ ok: true });
        expect(
          await a.gateway.invoke(byName(a.tools, 'send_invoice'), INVOICE_ARGS, {
            callId: 'c1',
            approval: grant,
          }),
        ).toMatchObject({ ok: false, error_type: 'approval_already_used' });
      });
    } finally {
      await Promise.all([a.close(), b.close()]);
    }
  });

  it('a shared store without KSADK_APPROVAL_SECRET refuses to load, and closes what it opened', async () => {
    await expect(
      loadOpenAITools({ env: { KSADK_APPROVAL_STORE: postgresUrl } }),
    ).rejects.toMatchObject({
      code: 'invalid_config',
      message: expect.stringContaining('KSADK_APPROVAL_SECRET'),
    });
  });
});
