// Execution records through ADK: a confirmed call runs once however often its confirmation is
// delivered, and a function call delivered again with its id (a retried model turn, a resumed
// invocation) gets the first run's result without running.
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

describe('ADK: calls delivered twice', () => {
  it('a confirmation delivered twice (a retried request) runs the call once', async () => {
    const runs: unknown[] = [];
    const gateway = createToolGateway({ env: {} });
    const { open, say, confirm } = await setup(gateway, runs, [
      callOf('write_note', { title: 'Plan', body: 'hire two' }),
      text('saved'),
      text('saved'),
    ]);
    const session = await open();
    const confirmation = confirmationOf(await say(session, 'save'));
    const first = responsesOf(await confirm(session, confirmation!, { confirmed: true }));
    await confirm(session, confirmation!, { confirmed: true });
    expect(runs).toEqual([{ title: 'Plan', body: 'hire two' }]);
    expect(first.at(-1)?.response).toMatchObject({ ok: true, saved: 'Plan' });
  });

  it('a function call delivered again with its id gets the first result, marked replayed, without running', async () => {
    const runs: unknown[] = [];
    const gateway = createToolGateway({ env: {}, approvalMode: 'full' });
    const again: Turn = {
      toolCalls: [{ id: 'fc_1', name: 'write_note', args: { title: 'P', body: 'b' } }],
    };
    const { open, say } = await setup(gateway, runs, [again, text('saved'), again, text('saved')]);
    const session = await open();
    const first = responsesOf(await say(session, 'save'));
    const second = responsesOf(await say(session, 'save again'));
    expect(runs).toEqual([{ title: 'P', body: 'b' }]);
    expect(first.at(-1)?.response).toMatchObject({ ok: true, saved: 'P' });
    expect(second.at(-1)?.response).toMatchObject({ ok: true, saved: 'P', replayed: true });
    const { items } = await gateway.executions();
    expect(items.map((item) => [item.toolName, item.callId, item.outcome])).toEqual([
      ['write_note', 'fc_1', 'succeeded'],
    ]);
  });
});
