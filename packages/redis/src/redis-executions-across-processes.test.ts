import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createToolGateway } from '@ksadk/core';
import { afterEach, beforeEach, expect, it } from 'vitest';
import {
  type ExecutionsAcrossProcesses,
  killedMidCallIsUnknown,
  racingDeliveriesRunOnce,
} from '../../../test-support/executions-across-processes.js';
import { createRedisExecutionStore } from './redis-execution-store.js';
import {
  describeWithRedis,
  redisUrl,
  runFixture,
  startFixture,
  uniquePrefix,
} from './test-support.js';

describeWithRedis('Redis: execution records across processes', () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'ksadk-redis-executions-'));
  });
  afterEach(() => rm(dir, { recursive: true, force: true }));

  const scenario = (): ExecutionsAcrossProcesses => {
    const keyPrefix = uniquePrefix();
    return {
      expect: expect as never,
      dir,
      storeArgs: [redisUrl, keyPrefix],
      runHost: (args) => runFixture('call-once.mjs', args),
      startHost: (args) => startFixture('call-once.mjs', args, 'RUNNING'),
      async withGateway(use) {
        const store = createRedisExecutionStore({ url: redisUrl, keyPrefix });
        try {
          await use(createToolGateway({ env: {}, executions: { store } }) as never);
        } finally {
          await store.close();
        }
      },
    };
  };

  it(
    'two processes delivering the same call at once run the tool once and both answer its result',
    {
      timeout: 90_000,
    },
    () => racingDeliveriesRunOnce(scenario()),
  );

  it(
    'a process killed mid-call leaves a record the next process reports as unknown; its replay does not run',
    {
      timeout: 60_000,
    },
    () => killedMidCallIsUnknown(scenario()),
  );
});
