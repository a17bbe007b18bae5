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
import { createPostgresExecutionStore } from './postgres-execution-store.js';
import {
  describeWithPostgres,
  postgresUrl,
  runFixture,
  startFixture,
  uniqueSchema,
} from './test-support.js';

describeWithPostgres('PostgreSQL: execution records across processes', () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'ksadk-postgres-executions-'));
  });
  afterEach(() => rm(dir, { recursive: true, force: true }));

  const scenario = (): ExecutionsAcrossProcesses => {
    const schema = uniqueSchema();
    return {
      expect: expect as never,
      dir,
      storeArgs: [postgresUrl, schema],
      runHost: (args) => runFixture('call-once.mjs', args),
      startHost: (args) => startFixture('call-once.mjs', args, 'RUNNING'),
      async withGateway(use) {
        const store = createPostgresExecutionStore({ connectionString: postgresUrl, schema });
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
