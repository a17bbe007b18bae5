import { spawn } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createToolGateway } from '@ksadk/core';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { createPostgresExecutionStore } from './postgres-execution-store.js';
import { describeWithPostgres, postgresUrl, runFixture, uniqueSchema } from './test-support.js';

const FIXTURE = new URL('./test-fixtures/call-once.mjs', import.meta.url);
const PACKAGE = new URL('../', import.meta.url);

/** Starts the fixture and resolves once its tool is running (its record is written by then). */
function startHanging(args: readonly string[]) {
  const child = spawn(
    process.execPath,
    ['--conditions=@ksadk/source', '--import', 'tsx', fileURLToPath(FIXTURE), ...args],
    { cwd: fileURLToPath(PACKAGE), stdio: ['ignore', 'pipe', 'pipe'] },
  );
  const running = new Promise<void>((resolve, reject) => {
    let out = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      out += chunk;
      if (out.includes('RUNNING')) resolve();
    });
    child.on('exit', () => reject(new Error(`the fixture exited before running: ${out}`)));
  });
  return { child, running };
}

const lastLine = (stdout: string): Record<string, unknown> =>
  JSON.parse(stdout.trim().split('\n').at(-1)!) as Record<string, unknown>;

describeWithPostgres('PostgreSQL: execution records across processes', () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'ksadk-postgres-executions-'));
  });
  afterEach(() => rm(dir, { recursive: true, force: true }));

  it('two processes delivering the same call at once run the tool once and both answer its result', {
    timeout: 90_000,
  }, async () => {
    const schema = uniqueSchema();
    const log = path.join(dir, 'log.txt');
    const startAt = String(Date.now() + 4_000);
    const args = [
      postgresUrl,
      schema,
      path.join(dir, 'results'),
      log,
      'call_race',
      'write',
      startAt,
    ];
    const runs = await Promise.all([
      runFixture('call-once.mjs', args),
      runFixture('call-once.mjs', args),
    ]);
    for (const run of runs) {
      expect(run.stderr).toBe('');
      expect(run.code).toBe(0);
    }
    expect((await readFile(log, 'utf8')).trim().split('\n')).toHaveLength(1);
    const results = runs.map((run) => lastLine(run.stdout));
    expect(results.filter((result) => result['replayed'] === true)).toHaveLength(1);
    const [first, second] = results.map(({ replayed: _, execution_id: __, ...result }) => result);
    expect(first).toMatchObject({ ok: true, n: 1 });
    expect(second).toEqual(first);

    // Listed for its account only.
    const store = createPostgresExecutionStore({ connectionString: postgresUrl, schema });
    try {
      const gateway = createToolGateway({ env: {}, executions: { store } });
      const mine = await gateway.executions({ principal: { accountId: 'acct-a' } });
      expect(mine.items.map((item) => [item.callId, item.outcome, item.attempt])).toEqual([
        ['call_race', 'succeeded', 1],
      ]);
      expect((await gateway.executions({ principal: { accountId: 'other' } })).items).toEqual([]);
    } finally {
      await store.close();
    }
  });

  it('a process killed mid-call leaves a record the next process reports as unknown; its replay does not run', {
    timeout: 60_000,
  }, async () => {
    const schema = uniqueSchema();
    const log = path.join(dir, 'log.txt');
    const args = [postgresUrl, schema, path.join(dir, 'results'), log, 'call_killed', 'hang', '0'];
    const { child, running } = startHanging(args);
    await running;
    child.kill('SIGKILL');

    const store = createPostgresExecutionStore({ connectionString: postgresUrl, schema });
    try {
      const gateway = createToolGateway({ env: {}, executions: { store } });
      const principal = { accountId: 'acct-a' };
      const [started] = (await gateway.executions({ principal })).items;
      expect(started).toMatchObject({
        callId: 'call_killed',
        status: 'started',
        outcome: 'running',
      });
      // Past its deadline (the tool's timeout plus the gateway's margin) it is unknown.
      await new Promise((resolve) => setTimeout(resolve, started!.deadlineAt - Date.now() + 50));
      const { items } = await gateway.executions({ principal, outcome: 'unknown' });
      expect(items.map((item) => [item.callId, item.status, item.outcome])).toEqual([
        ['call_killed', 'started', 'unknown'],
      ]);
      // Replayed by another process, the call does not run again: its outcome is unknown.
      const replay = await runFixture('call-once.mjs', args);
      expect(replay.stderr).toBe('');
      expect(lastLine(replay.stdout)).toMatchObject({
        ok: false,
        error_type: 'outcome_unknown',
        outcome: 'unknown',
      });
      expect((await readFile(log, 'utf8')).trim().split('\n')).toHaveLength(1);
      expect((await gateway.executions({ principal: { accountId: 'other' } })).items).toEqual([]);
    } finally {
      await store.close();
    }
  });
});
