import { spawn } from 'node:child_process';
import { statSync } from 'node:fs';
import { mkdtemp, readdir, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runFixtureProcess } from '../../../../test-support/run-fixture.js';
import { createToolGateway } from '../gateway/create-tool-gateway.js';
import { executionRecord } from '../testing/store-conformance/execution-check-kit.js';
import { checkExecutionStore } from '../testing/store-conformance/index.js';
import { createFileExecutionStore } from './file-execution-store.js';

const FIXTURE = new URL('./test-fixtures/call-once.ts', import.meta.url);
const PACKAGE = new URL('../../', import.meta.url);

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'ksadk-executions-'));
});
afterEach(() => rm(dir, { recursive: true, force: true }));

/** Starts the fixture and resolves once its tool is running (the record is written by then). */
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

describe('file execution store', () => {
  it('passes the execution store conformance suite', { timeout: 120_000 }, async () => {
    let n = 0;
    const failures = await checkExecutionStore((quotas) => {
      n += 1;
      return createFileExecutionStore({ dir: path.join(dir, `store-${n}`), quotas });
    });
    expect(failures).toEqual([]);
  });

  it('keeps records in 0600 files under 0700 folders, never through a planted symlink', async () => {
    const store = createFileExecutionStore({ dir: path.join(dir, 'records') });
    await store.begin(executionRecord({ accountId: 'acct', sessionId: 's' }));
    const accountDir = path.join(dir, 'records', 'acct');
    const [session] = await readdir(accountDir);
    const [file] = await readdir(path.join(accountDir, session!));
    expect(statSync(path.join(accountDir, session!, file!)).mode & 0o777).toBe(0o600);
    expect(statSync(accountDir).mode & 0o777).toBe(0o700);
    // An account folder planted as a symlink to somewhere else is refused; nothing lands there.
    const outside = await mkdtemp(path.join(dir, 'outside-'));
    await symlink(outside, path.join(dir, 'records', 'victim'));
    await expect(
      Promise.resolve(store.begin(executionRecord({ accountId: 'victim' }))),
    ).rejects.toThrow(/not a plain directory/);
    expect(await readdir(outside)).toEqual([]);
  });

  it('a garbage file where a record belongs is no record; a huge one is not read', async () => {
    const store = createFileExecutionStore({ dir: path.join(dir, 'records') });
    const record = executionRecord({ accountId: 'acct', sessionId: 's' });
    await store.begin(record);
    const sessionDir = path.join(dir, 'records', 'acct', 's');
    const [file] = await readdir(sessionDir);
    await writeFile(path.join(sessionDir, file!), 'x'.repeat(2 * 1024 * 1024));
    expect(await store.findCall({ ...record, now: Date.now() })).toBeUndefined();
    expect((await store.list({ accountId: 'acct', now: Date.now(), limit: 10 })).items).toEqual([]);
  });

  it('two processes delivering the same call at once run the tool once and both get its result', {
    timeout: 120_000,
  }, async () => {
    const log = path.join(dir, 'log.txt');
    const args = [path.join(dir, 'store'), path.join(dir, 'results'), log, 'call_race', 'write'];
    const runs = await Promise.all([
      runFixtureProcess(FIXTURE, args, PACKAGE, 90_000),
      runFixtureProcess(FIXTURE, args, PACKAGE, 90_000),
    ]);
    for (const run of runs) expect(run.stderr).toBe('');
    const results = runs.map((run) => JSON.parse(run.stdout.trim().split('\n').at(-1)!));
    expect((await readFile(log, 'utf8')).trim().split('\n')).toHaveLength(1);
    expect(results.map((result) => result.ok)).toEqual([true, true]);
    expect(results[0].pid).toBe(results[1].pid);
    expect(results.filter((result) => result.replayed === true)).toHaveLength(1);
  });

  it('a process killed mid-call leaves a record the next process reports as unknown, and its replay does not run', {
    timeout: 120_000,
  }, async () => {
    const log = path.join(dir, 'log.txt');
    const storeDir = path.join(dir, 'store');
    const args = [storeDir, path.join(dir, 'results'), log, 'call_killed', 'hang'];
    const { child, running } = startHanging(args);
    await running;
    child.kill('SIGKILL');
    // The next process replays the call: it waits out the first run's deadline, then answers
    // outcome_unknown without running the tool.
    const replay = await runFixtureProcess(FIXTURE, args, PACKAGE, 90_000);
    expect(JSON.parse(replay.stdout.trim().split('\n').at(-1)!)).toMatchObject({
      ok: false,
      error_type: 'outcome_unknown',
      outcome: 'unknown',
    });
    expect((await readFile(log, 'utf8')).trim().split('\n')).toHaveLength(1);
    const gateway = createToolGateway({
      env: {},
      executions: { store: createFileExecutionStore({ dir: storeDir }) },
    });
    const { items } = await gateway.executions({
      principal: { accountId: 'acct-a' },
      outcome: 'unknown',
    });
    expect(items.map((item) => [item.callId, item.status, item.outcome])).toEqual([
      ['call_killed', 'started', 'unknown'],
    ]);
    expect(
      (await gateway.executions({ principal: { accountId: 'acct-b' }, outcome: 'unknown' })).items,
    ).toEqual([]);
  });
});
