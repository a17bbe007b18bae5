// Attacks on the approval decisions found by an independent review, each kept as a regression.
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  type InvocationContext,
  runWithInvocationContext,
} from '../../context/invocation-context.js';
import { defineTool } from '../../tool/define-tool.js';
import { inputRequiredResult } from '../../tool/human-input.js';
import { PAUSED } from '../../tool/paused.js';
import type { ToolPolicyInput } from '../../tool/policy.js';
import { registerSecret } from '../../util/redact.js';
import { createToolGateway } from '../create-tool-gateway.js';
import { isApprovalRequired, type ToolResult } from '../results.js';
import { invokeWithApproval } from './round-trip.js';

const env = {} as NodeJS.ProcessEnv;
const alice: InvocationContext = { accountId: 'acct-a', userId: 'alice', sessionId: 's1' };
const as = <T>(context: InvocationContext, fn: () => Promise<T>): Promise<T> =>
  runWithInvocationContext(context, fn);
const idOf = (result: ToolResult): string => {
  if (!isApprovalRequired(result))
    throw new Error(`expected approval_required, got ${JSON.stringify(result)}`);
  return result.approval_request.id;
};
function sendTool(runs: unknown[], policy: ToolPolicyInput = {}) {
  return defineTool({
    name: 'send',
    description: 'Sends money.',
    input: z.object({ to: z.string(), amount: z.number() }),
    policy: { riskLevel: 'medium', sideEffects: ['payment'], ...policy },
    execute: (input) => {
      runs.push(input);
      return { ok: true };
    },
  });
}

describe('approval attacks', () => {
  it('edit + always: the same call re-delivered without its grant never runs the original arguments', async () => {
    const runs: { to: string }[] = [];
    const tool = sendTool(runs);
    const gateway = createToolGateway({ env });
    await as(alice, async () => {
      const id = idOf(
        await gateway.invoke(tool, { to: 'attacker', amount: 10_000 }, { callId: 'c1' }),
      );
      await gateway.approve(id, { args: { to: 'landlord', amount: 100 }, always: 'session' });
      await gateway.invoke(tool, { to: 'attacker', amount: 10_000 }, { callId: 'c1' });
    });
    expect(runs.some((run) => run.to === 'attacker')).toBe(false);
  });

  it('LangGraph-style replay (continuation "ask") of an edit with a question mid-call runs the edit, once', async () => {
    const runs: unknown[] = [];
    const gateway = createToolGateway({ env });
    const tool = defineTool({
      name: 'book',
      description: 'Books a seat.',
      input: z.object({ who: z.string() }),
      policy: { riskLevel: 'medium' },
      execute: async (input, context) => {
        const request = {
          type: 'ksadk_input' as const,
          tool_call_id: context.callId,
          tool_name: context.toolName,
          source: 'test',
          message: 'Which seat?',
          requested_schema: { type: 'object', properties: { seat: { type: 'string' } } },
          request_key: 'seat',
        };
        const answer = await context.askHuman(request);
        if (answer === PAUSED) return inputRequiredResult(request);
        runs.push({
          ...input,
          seat: answer.action === 'accept' ? answer.content?.['seat'] : undefined,
        });
        return { ok: true };
      },
    });
    const INTERRUPT = Symbol('interrupt');
    const node = async (resumes: unknown[]) => {
      let index = 0;
      const interrupt = (value: unknown) => {
        if (index < resumes.length) return resumes[index++];
        void value;
        throw INTERRUPT;
      };
      try {
        return await invokeWithApproval(
          gateway,
          tool,
          { who: 'model' },
          {
            callId: 'lg1',
            continuation: 'ask',
            decide: (pause) => interrupt(pause),
            askHuman: (request) => {
              try {
                return interrupt(request) as never;
              } catch {
                return PAUSED;
              }
            },
          },
        );
      } catch (error) {
        if (error === INTERRUPT) return 'interrupted';
        throw error;
      }
    };
    const edit = { action: 'edit', args: { who: 'human' }, always: 'session' };
    await as(alice, async () => {
      expect(await node([])).toBe('interrupted');
      await node([edit]); // runs, asks the seat, stops with input_required
      const done = await node([edit, { action: 'accept', content: { seat: '12A' } }]);
      expect(done).toMatchObject({ status: 'done', result: { ok: true, arguments_edited: true } });
    });
    expect(runs).toEqual([{ who: 'human', seat: '12A' }]);
  });

  it('an edited grant is honoured even when the policy no longer asks for the call', async () => {
    const runs: unknown[] = [];
    let ask = true;
    const tool = sendTool(runs, { requiresApproval: () => ask });
    const gateway = createToolGateway({ env });
    await as(alice, async () => {
      const id = idOf(await gateway.invoke(tool, { to: 'model', amount: 1 }, { callId: 'e1' }));
      const grant = await gateway.approve(id, { args: { to: 'human', amount: 1 } });
      ask = false;
      expect(
        await gateway.invoke(tool, { to: 'model', amount: 1 }, { callId: 'e1', approval: grant }),
      ).toMatchObject({
        ok: true,
        arguments_edited: true,
      });
    });
    expect(runs).toEqual([{ to: 'human', amount: 1 }]);
  });

  it('a malformed principal is refused by every listing, never widened to all accounts', async () => {
    const gateway = createToolGateway({ env });
    await as(alice, () => gateway.invoke(sendTool([]), { to: 'x', amount: 1 }));
    for (const principal of [
      { admin: false },
      {},
      { accountId: undefined },
      { accountId: 7 },
      null,
      { admin: true, accountId: 'a' },
    ]) {
      for (const list of [
        () => gateway.listApprovalRequests({ principal: principal as never }),
        () => gateway.listStandingGrants({ principal: principal as never }),
        () => gateway.auditLog({ principal: principal as never }),
      ])
        await expect(list()).rejects.toMatchObject({ code: 'invalid_arguments' });
    }
  });

  it('a standing rejection wins over an expiry approval, an issued grant and a continuation', {
    timeout: 10_000,
  }, async () => {
    const runs: unknown[] = [];
    const tool = sendTool(runs, { onExpiry: 'approve' });
    const gateway = createToolGateway({ env, approvalTtlMs: 100, approvalRetentionMs: 60_000 });
    await as(alice, async () => {
      idOf(await gateway.invoke(tool, { to: 'late', amount: 1 }, { callId: 'x1' }));
      const issued = await gateway.approve(
        idOf(await gateway.invoke(tool, { to: 'issued', amount: 1 })),
      );
      await gateway.reject(idOf(await gateway.invoke(tool, { to: 'other', amount: 1 })), {
        always: 'session',
      });
      await new Promise((resolve) => setTimeout(resolve, 150));
      expect(await gateway.invoke(tool, { to: 'late', amount: 1 }, { callId: 'x1' })).toMatchObject(
        { error_type: 'approval_rejected' },
      );
      expect(
        await gateway.invoke(tool, { to: 'issued', amount: 1 }, { approval: issued }),
      ).toMatchObject({ error_type: 'approval_rejected' });
    });
    expect(runs).toEqual([]);
  });

  it('concurrent re-deliveries after an expiry, a rejection, or under a standing grant run at most once and ask no one', {
    timeout: 10_000,
  }, async () => {
    const runs: unknown[] = [];
    const tool = sendTool(runs, { onExpiry: 'approve' });
    const gateway = createToolGateway({ env, approvalTtlMs: 100, approvalRetentionMs: 60_000 });
    // The rejection and the standing grant are decided by this one, whose requests do not expire
    // in the time a loaded machine takes between asking and deciding.
    const patient = createToolGateway({ env });
    await as(alice, async () => {
      idOf(await gateway.invoke(tool, { to: 'a', amount: 1 }, { callId: 'k1' }));
      await new Promise((resolve) => setTimeout(resolve, 150));
      const replays = await Promise.all(
        [1, 2, 3].map(() => gateway.invoke(tool, { to: 'a', amount: 1 }, { callId: 'k1' })),
      );
      // One runs; the others get its result, marked replayed.
      expect(replays.filter((result) => result.ok && !result['replayed'])).toHaveLength(1);
      expect(replays.some(isApprovalRequired)).toBe(false);
      await patient.reject(
        idOf(await patient.invoke(tool, { to: 'b', amount: 1 }, { callId: 'k2' })),
      );
      const afterReject = await Promise.all(
        [1, 2, 3].map(() => patient.invoke(tool, { to: 'b', amount: 1 }, { callId: 'k2' })),
      );
      expect(afterReject.some(isApprovalRequired)).toBe(false);
      const grantId = (
        await patient.approve(idOf(await patient.invoke(tool, { to: 'c', amount: 1 })), {
          always: 'session',
        })
      ).standingGrantId;
      expect(grantId).toBeDefined();
      const standing = await Promise.all(
        [1, 2, 3].map(() => patient.invoke(tool, { to: 'd', amount: 1 }, { callId: 'k3' })),
      );
      expect(standing.filter((result) => result.ok && !result['replayed'])).toHaveLength(1);
    });
    expect(runs).toEqual([
      { to: 'a', amount: 1 },
      { to: 'd', amount: 1 },
    ]);
  });

  it('registered credentials never reach the audit log, whatever carries them', async () => {
    const secret = 'sk-live-approvals-0123456789abcdef';
    registerSecret(secret);
    const tool = sendTool([], {
      riskLevel: () => ({ riskLevel: 'high', reason: `key ${secret} in use` }),
    });
    const gateway = createToolGateway({ env, auditArguments: true });
    await as(alice, async () => {
      const id = idOf(await gateway.invoke(tool, { to: secret, amount: 1 }));
      await gateway.reject(id, { reason: `because ${secret}` });
      expect(JSON.stringify((await gateway.auditLog()).items)).not.toContain(secret);
    });
  });

  it('a policy answer whose getter throws is an unreadable answer, never a tool error with its message', async () => {
    const tool = sendTool([], {
      requiresApproval: () =>
        Object.defineProperty({}, 'requiresApproval', {
          get() {
            throw new Error('internal db at 10.0.0.5 refused');
          },
        }) as never,
    });
    const result = await createToolGateway({ env }).invoke(tool, { to: 'x', amount: 1 });
    expect(result).toMatchObject({ error_type: 'approval_policy_failed' });
    expect(JSON.stringify(result)).not.toContain('10.0.0.5');
  });

  it('a zero retention is refused; an async hook error reporter that rejects is swallowed', async () => {
    expect(() => createToolGateway({ env, approvalRetentionMs: 0 })).toThrow(/approvalRetentionMs/);
    const unhandled: unknown[] = [];
    const onUnhandled = (reason: unknown) => unhandled.push(reason);
    process.on('unhandledRejection', onUnhandled);
    try {
      const gateway = createToolGateway({
        env,
        hooks: {
          onApprovalRequested: () => {
            throw new Error('hook');
          },
          onHookError: async () => {
            throw new Error('reporter');
          },
        },
      });
      await gateway.invoke(sendTool([]), { to: 'x', amount: 1 });
      await new Promise((resolve) => setTimeout(resolve, 20));
    } finally {
      process.off('unhandledRejection', onUnhandled);
    }
    expect(unhandled).toEqual([]);
  });
});
