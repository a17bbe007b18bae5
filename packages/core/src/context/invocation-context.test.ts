import { describe, expect, it } from 'vitest';
import {
  getInvocationContext,
  getInvocationContextOrEmpty,
  runWithInvocationContext,
  runWithInvocationDefaults,
} from './invocation-context.js';

describe('invocation context', () => {
  it('is undefined outside a run and frozen inside', () => {
    expect(getInvocationContext()).toBeUndefined();
    expect(getInvocationContextOrEmpty()).toEqual({});
    runWithInvocationContext({ accountId: 'a', metadata: { k: 1 } }, () => {
      const context = getInvocationContext()!;
      expect(context).toEqual({ accountId: 'a', metadata: { k: 1 } });
      expect(Object.isFrozen(context)).toBe(true);
    });
  });

  it('inherits unset fields from the enclosing context and normalises the mode', async () => {
    await runWithInvocationContext(
      { accountId: 'a', sessionId: 's', approvalMode: 'ask' },
      async () => {
        await runWithInvocationContext({ sessionId: 's2', approvalMode: 'off' }, async () => {
          await new Promise((resolve) => setTimeout(resolve, 1));
          expect(getInvocationContext()).toEqual({
            accountId: 'a',
            sessionId: 's2',
            approvalMode: 'full',
          });
        });
        expect(getInvocationContext()).toMatchObject({ sessionId: 's', approvalMode: 'ask' });
      },
    );
  });

  it('fills only unset fields with defaults', () => {
    runWithInvocationContext({ sessionId: 'host' }, () =>
      runWithInvocationDefaults({ sessionId: 'framework', userId: 'u', agentId: '' }, () => {
        expect(getInvocationContext()).toEqual({ sessionId: 'host', userId: 'u' });
      }),
    );
    expect(runWithInvocationDefaults({}, () => getInvocationContext())).toBeUndefined();
  });
});
