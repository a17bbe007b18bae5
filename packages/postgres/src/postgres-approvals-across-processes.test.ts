import { createToolGateway, defineTool, runWithInvocationContext } from '@ksadk/core';
import { expect, it } from 'vitest';
import { z } from 'zod';
import { approvalsAcrossProcesses } from '../../../test-support/approvals-across-processes.js';
import { createPostgresApprovalStore } from './postgres-approval-store.js';
import { describeWithPostgres, postgresUrl, runFixture, uniqueSchema } from './test-support.js';

const SECRET = 'one-secret-for-every-instance-pg';

describeWithPostgres('PostgreSQL: approval decisions across processes', () => {
  it('an edit with a standing grant decided in another process runs, is listed, audited and revoked here', {
    timeout: 90_000,
  }, async () => {
    const schema = uniqueSchema();
    const approvalStore = createPostgresApprovalStore({ connectionString: postgresUrl, schema });
    try {
      await approvalsAcrossProcesses({
        core: { defineTool: defineTool as never, runWithInvocationContext },
        z: z as never,
        expect: expect as never,
        gateway: createToolGateway({ env: {}, approvalStore, approvalSecret: SECRET }) as never,
        async decideInChild(approvalId, decision) {
          const run = await runFixture('decide-approval.mjs', [
            postgresUrl,
            schema,
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
