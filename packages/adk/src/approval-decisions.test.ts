// The approval decisions of core, through ADK's own confirmations: a real LlmAgent and
// InMemoryRunner, a scripted model, `adk_request_confirmation` answered with its payload.
import { LogLevel, setLogLevel } from '@google/adk';
import { createToolGateway } from '@ksadk/core';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  callOf,
  confirmationOf,
  responsesOf,
  setup,
  type Turn,
  text,
} from './test-fixtures/confirmation-runner.js';

beforeAll(() => setLogLevel(LogLevel.ERROR));

describe('ADK: approvals decided per call, edited, standing, listed, audited', () => {
  it('a per-call policy lets a small payment through and asks for a large one', async () => {
    const runs: unknown[] = [];
    const gateway = createToolGateway({ env: {} });
    const { open, say } = await setup(gateway, runs, [
      callOf('pay', { amount: 10, to: 'a' }),
      text('paid'),
      callOf('pay', { amount: 5_000, to: 'a' }),
    ]);
    const session = await open();
    expect(confirmationOf(await say(session, 'pay 10'))).toBeUndefined();
    expect(confirmationOf(await say(session, 'pay 5000'))).toBeDefined();
    expect(runs).toEqual([{ amount: 10, to: 'a' }]);
  });

  it('the human edits the call in the confirmation payload: exactly the edited call runs once', async () => {
    const runs: unknown[] = [];
    const gateway = createToolGateway({ env: {} });
    const { open, say, confirm } = await setup(gateway, runs, [
      callOf('write_note', { title: 'Plan', body: 'fire everyone' }),
      text('saved'),
    ]);
    const session = await open();
    const confirmation = confirmationOf(await say(session, 'save'));
    const events = await confirm(session, confirmation!, {
      confirmed: true,
      payload: { action: 'edit', args: { title: 'Plan', body: 'hire two' } },
    });
    expect(runs).toEqual([{ title: 'Plan', body: 'hire two' }]);
    expect(JSON.stringify(responsesOf(events))).toContain('arguments_edited');
  });

  it('"always for this session" from the payload: the next three calls run; another session asks; revoking asks again', async () => {
    const runs: unknown[] = [];
    const gateway = createToolGateway({ env: {} });
    const steps: Turn[] = [callOf('write_note', { title: 'n0', body: 'b' }), text('saved')];
    for (let index = 1; index <= 3; index += 1)
      steps.push(callOf('write_note', { title: `n${index}`, body: 'b' }), text('saved'));
    steps.push(
      callOf('write_note', { title: 'other', body: 'b' }),
      callOf('write_note', { title: 'after', body: 'b' }),
    );
    const { open, say, confirm } = await setup(gateway, runs, steps);
    const session = await open();
    const confirmation = confirmationOf(await say(session, 'save'));
    await confirm(session, confirmation!, { confirmed: true, payload: { always: 'session' } });
    for (let index = 1; index <= 3; index += 1)
      expect(confirmationOf(await say(session, 'again'))).toBeUndefined();
    expect(runs).toHaveLength(4);
    expect(confirmationOf(await say(await open(), 'save'))).toBeDefined();
    const [grant] = (await gateway.listStandingGrants()).items;
    expect(grant).toMatchObject({ scope: 'session', sessionId: session, toolName: 'write_note' });
    await gateway.revokeStandingGrant(grant!.id);
    expect(confirmationOf(await say(session, 'once more'))).toBeDefined();
    expect(runs).toHaveLength(4);
    // The inbox shows the two waiting calls, in their sessions; the audit log the three standing uses.
    expect((await gateway.listApprovalRequests()).items).toHaveLength(2);
    expect(
      (await gateway.listApprovalRequests({ principal: { accountId: 'someone-else' } })).items,
    ).toEqual([]);
    const audit = await gateway.auditLog({ limit: 100 });
    expect(
      audit.items.filter((entry) => entry.how === 'standing_grant' && entry.event === 'used'),
    ).toHaveLength(3);
  });

  it('confirmed: false rejects whatever the payload says', async () => {
    const runs: unknown[] = [];
    const gateway = createToolGateway({ env: {} });
    const { open, say, confirm } = await setup(gateway, runs, [
      callOf('write_note', { title: 'x', body: 'y' }),
      text('not saved'),
    ]);
    const session = await open();
    const confirmation = confirmationOf(await say(session, 'save'));
    const events = await confirm(session, confirmation!, {
      confirmed: false,
      payload: { action: 'approve', args: { title: 'x', body: 'y' } },
    });
    expect(runs).toEqual([]);
    expect(JSON.stringify(responsesOf(events))).toContain('approval_rejected');
  });
});
