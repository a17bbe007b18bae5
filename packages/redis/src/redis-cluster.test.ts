import {
  checkApprovalStore,
  checkCredentialStore,
  checkExecutionStore,
  checkMemoryBackend,
} from '@ksadk/core/testing';
import { Cluster } from 'ioredis';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { createRedisApprovalStore } from './redis-approval-store.js';
import { createRedisCredentialStore } from './redis-credential-store.js';
import { createRedisExecutionStore } from './redis-execution-store.js';
import { createRedisMemoryBackend } from './redis-memory-backend.js';
import {
  binaryOnPath,
  startRedisCluster,
  type TestRedisCluster,
} from './test-fixtures/redis-cluster.js';
import { testApprovalRecord, uniquePrefix } from './test-support.js';

const missing = ['redis-server', 'redis-cli'].filter((name) => !binaryOnPath(name));
if (missing.length > 0) {
  const why = `no Redis Cluster: ${missing.join(' and ')} not installed (Debian redis-server)`;
  if (inject('servicesRequired')) {
    it('has redis-server and redis-cli for a cluster (KSADK_TEST_SERVICES_REQUIRED=1)', () => {
      throw new Error(why);
    });
  } else {
    console.warn(`\n!!! SKIPPED the Redis Cluster tests: ${why}.\n`);
  }
}

describe.skipIf(missing.length > 0)('on a real three-node Redis Cluster', () => {
  let cluster: TestRedisCluster | undefined;
  let client: Cluster;
  beforeAll(async () => {
    cluster = await startRedisCluster();
    client = new Cluster([...cluster.nodes], { redisOptions: { maxRetriesPerRequest: 1 } });
  }, 60_000);
  afterAll(async () => {
    await client?.quit().catch(() => undefined);
    await cluster?.stop();
  });

  it('the approval store passes its conformance suite', { timeout: 120_000 }, async () => {
    const failures = await checkApprovalStore((quotas) =>
      createRedisApprovalStore({ client, keyPrefix: uniquePrefix(), ...quotas }),
    );
    expect(failures).toEqual([]);
  });

  it('the credential store passes its conformance suite', { timeout: 120_000 }, async () => {
    const failures = await checkCredentialStore((quotas) =>
      createRedisCredentialStore({ client, keyPrefix: uniquePrefix(), quotas }),
    );
    expect(failures).toEqual([]);
  });

  it('the execution store passes its conformance suite', { timeout: 120_000 }, async () => {
    const failures = await checkExecutionStore((quotas) =>
      createRedisExecutionStore({ client, keyPrefix: uniquePrefix(), quotas }),
    );
    expect(failures).toEqual([]);
  });

  it('the memory backend passes its conformance suite', { timeout: 120_000 }, async () => {
    const failures = await checkMemoryBackend((limits) =>
      createRedisMemoryBackend({ client, keyPrefix: uniquePrefix(), ...limits }),
    );
    expect(failures).toEqual([]);
  });

  it('approval keys share one slot; memory keys spread over the masters', async () => {
    const keyPrefix = uniquePrefix();
    const approvals = createRedisApprovalStore({ client, keyPrefix });
    const memory = createRedisMemoryBackend({ client, keyPrefix });
    for (let i = 0; i < 5; i += 1) {
      await approvals.create(
        testApprovalRecord({
          id: `appr_${String(i).padStart(32, '0')}`,
          bindingKey: `binding-${i}`,
          sessionId: `s${i}`,
        }),
      );
    }
    await approvals.saveStandingGrant({
      id: 'sgr_00000000000000000000000000000001',
      effect: 'allow',
      scope: 'user',
      accountId: 'acme',
      userId: 'alice',
      sessionId: '',
      toolName: 'write_note',
      createdAt: Date.now(),
      expiresAt: Date.now() + 60_000,
      approvalId: 'appr_1',
      decidedBy: 'admin',
    });
    await approvals.appendAudit({
      id: 'aud_1',
      at: Date.now(),
      event: 'requested',
      accountId: 'acme',
      userId: 'alice',
      sessionId: 's1',
      toolName: 'write_note',
      argsDigest: 'digest',
    });
    for (let i = 0; i < 40; i += 1) {
      await memory.save({ accountId: 'acme', userId: `user-${i}` }, { content: `fact ${i}` });
    }
    const keysByMaster = await Promise.all(
      client.nodes('master').map((node) => node.keys(`${keyPrefix}*`)),
    );
    const slotOf = async (key: string) => Number(await client.cluster('KEYSLOT', key));
    const approvalKeys = keysByMaster.flat().filter((key) => !key.includes('memory:'));
    expect(approvalKeys.length).toBeGreaterThan(5);
    expect(approvalKeys.some((key) => key.includes(':sgrt:'))).toBe(true);
    expect(approvalKeys.some((key) => key.includes(':audit:'))).toBe(true);
    expect(new Set(await Promise.all(approvalKeys.map(slotOf))).size).toBe(1);
    const mastersWithMemory = keysByMaster.filter((keys) =>
      keys.some((k) => k.includes('memory:')),
    );
    expect(mastersWithMemory.length).toBeGreaterThan(1);
    await approvals.close?.();
    await memory.close?.();
  });
});
