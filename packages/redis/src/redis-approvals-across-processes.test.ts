import { createToolGateway, defineTool, runWithInvocationContext } from '@ksadk/core';
import { expect, it } from 'vitest';
import { z } from 'zod';
import { approvalsAcrossProcesses } from '../../../test-support/approvals-across-processes.js';
import { createRedisApprovalStore } from './redis-approval-store.js';
import { describeWithRedis, redisUrl, runFixture, uniquePrefix } from './test-support.js';

const SECRET = 'one-secret-for-every-instance-redis';

describeWithRedis('Redis: approval decisions across processes', () => {
  it('an edit with a standing grant decided in another process runs, is listed, audited and revoked here', {
    timeout: 90_000,
  }, async () => {
    const keyPrefix = uniquePrefix();
    const approvalStore = createRedisApprovalStore({ url: redisUrl, keyPrefix });
    try {
      await approvalsAcrossProcesses({
        core: { defineTool: defineTool as never, runWithInvocationContext },
        z: z as never,
        expect: expect as never,
        gateway: createToolGateway({ env: {}, approvalStore, approvalSecret: SECRET }) as never,
        async decideInChild(approvalId, decision) {
          const run = await runFixture('decide-approval.mjs', [
            redisUrl,
            keyPrefix,
            SECRET,
            approvalId,
            JSON.stringify(decision),
          ]);
          expect(run.stderr).toBe('');
          expect(run.code).toBe(0);
          return run.stdout.trim();
        },
      });
    } finally {
      await approvalStore.close();
    }
  });
});
