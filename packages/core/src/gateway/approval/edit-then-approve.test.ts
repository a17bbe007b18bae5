import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { runWithInvocationContext } from '../../context/invocation-context.js';
import { KsadkError } from '../../errors/ksadk-error.js';
import { defineTool } from '../../tool/define-tool.js';
import { createToolGateway } from '../create-tool-gateway.js';
import { isApprovalRequired, type ToolResult } from '../results.js';
import { invokeWithApproval } from './round-trip.js';

const env = {} as NodeJS.ProcessEnv;

function sendTool(runs: unknown[]) {
  return defineTool({
    name: 'send_email',
    description: 'Sends an email.',
    input: z.object({ to: z.email(), subject: z.string().max(100) }),
    policy: { riskLevel: 'high', sideEffects: ['email_send'] },
    execute: (input) => {
      runs.push(input);
      return { ok: true, sent_to: input.to };
    },
  });
}

const asked = (result: ToolResult): string => {
  if (!isApprovalRequired(result))
    throw new Error(`expected approval_required, got ${JSON.stringify(result)}`);
  return result.approval_request.id;
};

describe('edit, then approve', () => {
  it('runs exactly the edited call, once, and tells the model what ran', async () => {
    const runs: unknown[] = [];
    const tool = sendTool(runs);
    const gateway = createToolGateway({ env });
    const original = { to: 'all@corp.example', subject: 'Layoffs' };
    const edited = { to: 'boss@corp.example', subject: 'Draft' };
    const id = asked(await gateway.invoke(tool, original, { callId: 'c1' }));
    const grant = await gateway.approve(id, { args: edited, tool });
    expect(grant.editedArguments).toEqual(edited);
    const result = await gateway.invoke(tool, original, { callId: 'c1', approval: grant });
    expect(result).toMatchObject({
      ok: true,
      sent_to: 'boss@corp.example',
      arguments_edited: true,
      edited_arguments: edited,
    });
    expect(String(result['edit_note'])).toMatch(/edited/);
    expect(runs).toEqual([edited]);
    // The same grant again, with either arguments: nothing more runs (the replay of the call gets
    // what ran).
    expect(await gateway.invoke(tool, original, { callId: 'c1', approval: grant })).toMatchObject({
      ok: true,
      sent_to: 'boss@corp.example',
      arguments_edited: true,
      replayed: true,
    });
    expect(await gateway.invoke(tool, edited, { approval: grant })).toMatchObject({ ok: false });
    expect(runs).toHaveLength(1);
    const audit = await gateway.auditLog();
    expect(audit.items.map((entry) => [entry.event, entry.how ?? ''])).toEqual(
      expect.arrayContaining([
        ['approved', 'edited'],
        ['used', 'edited'],
      ]),
    );
  });

  it('a grant for edited arguments never runs the original ones; a plain grant never runs edited ones', async () => {
    const runs: unknown[] = [];
    const tool = sendTool(runs);
    const gateway = createToolGateway({ env });
    const a = { to: 'a@x.example', subject: 'A' };
    const b = { to: 'b@x.example', subject: 'B' };
    // Edited grant presented with the edited arguments: runs the edited ones.
    const edit = await gateway.approve(asked(await gateway.invoke(tool, a)), { args: b });
    expect(await gateway.invoke(tool, b, { approval: edit })).toMatchObject({
      ok: true,
      sent_to: 'b@x.example',
    });
    // A plain grant for a, presented with b: not valid, b asks.
    const plain = await gateway.approve(asked(await gateway.invoke(tool, { ...a, subject: 'A2' })));
    expect(
      isApprovalRequired(await gateway.invoke(tool, { ...b, subject: 'B2' }, { approval: plain })),
    ).toBe(true);
    // A token whose edit digest was tampered with does not verify.
    const edit2 = await gateway.approve(
      asked(await gateway.invoke(tool, { ...a, subject: 'A3' })),
      {
        args: { ...b, subject: 'B3' },
      },
    );
    const [body, mac] = edit2.token.split('.');
    const payload = JSON.parse(Buffer.from(body!, 'base64url').toString());
    payload.run = payload.digest; // "run the original"
    const forged = `${Buffer.from(JSON.stringify(payload)).toString('base64url')}.${mac}`;
    expect(
      isApprovalRequired(await gateway.invoke(tool, { ...a, subject: 'A3' }, { approval: forged })),
    ).toBe(true);
    expect(runs).toEqual([b]);
  });

  it('refuses edited arguments that fail the schema: at approve with the tool, at the call without it', async () => {
    const runs: unknown[] = [];
    const tool = sendTool(runs);
    const gateway = createToolGateway({ env });
    const call = { to: 'a@x.example', subject: 'A' };
    const id = asked(await gateway.invoke(tool, call));
    await expect(
      gateway.approve(id, { args: { to: 'not an email', subject: 'x' }, tool }),
    ).rejects.toMatchObject({
      code: 'invalid_arguments',
    });
    // Still pending: the human may try again.
    expect((await gateway.listApprovalRequests()).items.map((item) => item.id)).toEqual([id]);
    const grant = await gateway.approve(id, { args: { to: 'not an email', subject: 'x' } });
    const result = await gateway.invoke(tool, call, { approval: grant });
    expect(result).toMatchObject({ ok: false, error_type: 'invalid_arguments' });
    expect(String(result['error_message'])).toMatch(/edited/);
    expect(runs).toEqual([]);
  });

  it('refuses hostile edits: forbidden keys, huge, deep, not an object', async () => {
    const tool = sendTool([]);
    const gateway = createToolGateway({ env });
    for (const args of [
      JSON.parse('{"to":"a@x.example","subject":"s","__proto__":{"admin":true}}'),
      { to: 'a@x.example', subject: 'x'.repeat(5 * 1024 * 1024) },
      { to: 'a@x.example', subject: 's', deep: JSON.parse(`${'['.repeat(100)}${']'.repeat(100)}`) },
      [1, 2] as never,
      'rm -rf' as never,
    ]) {
      const id = asked(
        await gateway.invoke(tool, { to: 'a@x.example', subject: String(Math.random()) }),
      );
      const error = await gateway.approve(id, { args }).catch((caught: unknown) => caught);
      expect(KsadkError.isInstance(error) && error.code).toBe('invalid_arguments');
    }
  });

  it('round trip: the decision { action: "edit", args } runs the edited call; an invalid edit runs nothing', async () => {
    const runs: unknown[] = [];
    const tool = sendTool(runs);
    const gateway = createToolGateway({ env });
    await runWithInvocationContext({ accountId: 'acct', sessionId: 's1' }, async () => {
      const ok = await invokeWithApproval(
        gateway,
        tool,
        { to: 'a@x.example', subject: 'A' },
        {
          callId: 'call-1',
          decide: () => ({ action: 'edit', args: { to: 'b@x.example', subject: 'B' } }),
        },
      );
      expect(ok.result).toMatchObject({ ok: true, sent_to: 'b@x.example', arguments_edited: true });
      const langchain = await invokeWithApproval(
        gateway,
        tool,
        { to: 'c@x.example', subject: 'C' },
        {
          callId: 'call-2',
          decide: () => ({
            decisions: [
              {
                type: 'edit',
                edited_action: { name: 'send_email', args: { to: 'd@x.example', subject: 'D' } },
              },
            ],
          }),
        },
      );
      expect(langchain.result).toMatchObject({ ok: true, sent_to: 'd@x.example' });
      const bad = await invokeWithApproval(
        gateway,
        tool,
        { to: 'e@x.example', subject: 'E' },
        {
          callId: 'call-3',
          decide: () => ({ action: 'edit', args: { to: 'nope' } }),
        },
      );
      expect(bad.result).toMatchObject({ ok: false, error_type: 'invalid_arguments' });
      const unreadable = await invokeWithApproval(
        gateway,
        tool,
        { to: 'f@x.example', subject: 'F' },
        {
          callId: 'call-4',
          decide: () => ({ action: 'edit', args: 'to everyone' }),
        },
      );
      expect(unreadable.result).toMatchObject({ error_type: 'approval_rejected' });
      expect((await gateway.listApprovalRequests()).items).toEqual([]);
    });
    expect(runs).toEqual([
      { to: 'b@x.example', subject: 'B' },
      { to: 'd@x.example', subject: 'D' },
    ]);
  });
});
