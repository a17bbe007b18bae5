import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  type InvocationContext,
  runWithInvocationContext,
} from '../../context/invocation-context.js';
import { defineTool } from '../../tool/define-tool.js';
import { createToolGateway } from '../create-tool-gateway.js';
import { invokeDecidedCall } from './decided-call.js';

const env = {} as NodeJS.ProcessEnv;
const alice: InvocationContext = { accountId: 'acct-a', userId: 'alice', sessionId: 's1' };
const mallory: InvocationContext = { accountId: 'acct-m', userId: 'mallory', sessionId: 's1' };
const as = <T>(context: InvocationContext, fn: () => Promise<T>): Promise<T> =>
  runWithInvocationContext(context, fn);

function setup() {
  const runs: unknown[] = [];
  const tool = defineTool({
    name: 'write_file',
    description: 'Writes a file.',
    input: z.object({ path: z.string(), text: z.string() }),
    policy: { riskLevel: 'medium', sideEffects: ['workspace_write'] },
    execute: (input) => {
      runs.push(input);
      return { ok: true, path: input.path };
    },
  });
  return { runs, tool, gateway: createToolGateway({ env }) };
}
const args = { path: 'a.txt', text: 'hi' };

describe('invokeDecidedCall: a framework says a person decided', () => {
  it('an approval of the request made for this call runs it once; the same answer again runs nothing more', async () => {
    const { runs, tool, gateway } = setup();
    await as(alice, async () => {
      await gateway.pendingApproval(tool, args, { callId: 'c1' });
      const done = await invokeDecidedCall(gateway, tool, args, {
        callId: 'c1',
        decision: 'approve',
      });
      expect(done).toMatchObject({ ok: true });
      const replayed = await invokeDecidedCall(gateway, tool, args, {
        callId: 'c1',
        decision: 'approve',
      });
      expect(replayed).toMatchObject({ ok: true, replayed: true });
      expect(runs).toHaveLength(1);
    });
  });

  it('makes no request: an approval for a call nobody asked about approves nothing', async () => {
    const { runs, tool, gateway } = setup();
    await as(alice, async () => {
      const result = await invokeDecidedCall(gateway, tool, args, {
        callId: 'never-asked',
        decision: 'approve',
      });
      expect(result).toMatchObject({ ok: false, error_type: 'approval_required' });
      expect(runs).toEqual([]);
    });
  });

  it('an approval moved to other arguments, another call id or another account runs nothing', async () => {
    const { runs, tool, gateway } = setup();
    await as(alice, () => gateway.pendingApproval(tool, args, { callId: 'c1' }));
    const decision = 'approve';
    await as(alice, async () => {
      const other = { path: '/etc/passwd', text: 'x' };
      expect(
        await invokeDecidedCall(gateway, tool, other, { callId: 'c1', decision }),
      ).toMatchObject({ error_type: 'approval_required' });
      expect(
        await invokeDecidedCall(gateway, tool, args, { callId: 'c2', decision }),
      ).toMatchObject({ error_type: 'approval_required' });
    });
    await as(mallory, async () => {
      expect(
        await invokeDecidedCall(gateway, tool, args, { callId: 'c1', decision }),
      ).toMatchObject({ error_type: 'approval_required' });
    });
    expect(runs).toEqual([]);
    // Alice's own request is still there, still undecided.
    await as(alice, async () => {
      const { items } = await gateway.listApprovalRequests();
      expect(items.map((item) => [item.tool_name, item.status])).toContainEqual([
        'write_file',
        'pending',
      ]);
    });
  });

  it('a rejection closes the request and answers approval_rejected; an unreadable decision rejects', async () => {
    for (const decision of [{ type: 'reject', reason: 'no' }, 'maybe', { approved: 'true' }]) {
      const { runs, tool, gateway } = setup();
      await as(alice, async () => {
        await gateway.pendingApproval(tool, args, { callId: 'c1' });
        const result = await invokeDecidedCall(gateway, tool, args, { callId: 'c1', decision });
        expect(result).toMatchObject({ ok: false, error_type: 'approval_rejected' });
        expect(runs).toEqual([]);
      });
    }
  });

  it('"always for this session" becomes a standing grant the next call uses', async () => {
    const { runs, tool, gateway } = setup();
    await as(alice, async () => {
      await gateway.pendingApproval(tool, args, { callId: 'c1' });
      await invokeDecidedCall(gateway, tool, args, {
        callId: 'c1',
        decision: { type: 'approve', always: 'session' },
      });
      expect(await gateway.pendingApproval(tool, { path: 'b.txt', text: 'x' })).toBeUndefined();
      expect(await gateway.invoke(tool, { path: 'b.txt', text: 'x' })).toMatchObject({ ok: true });
      expect(runs).toHaveLength(2);
    });
  });

  it('no decision: the call is invoked as is', async () => {
    const { runs, tool, gateway } = setup();
    await as(alice, async () => {
      expect(
        await invokeDecidedCall(gateway, tool, args, { callId: 'c1', decision: undefined }),
      ).toMatchObject({ error_type: 'approval_required' });
      expect(runs).toEqual([]);
    });
  });
});
