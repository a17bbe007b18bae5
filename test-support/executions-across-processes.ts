// For the store packages' tests: execution records shared by processes — two processes delivering
// one call at once run it once, and a process killed mid-call leaves a record the next process
// reports as unknown and does not run again. The hosts are the package's call-once.mjs fixture
// (test-support/call-once-host.ts). Imports nothing from the packages: the test hands in its store.
import type { ChildProcess } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import path from 'node:path';

type Result = Record<string, unknown>;
type Run = { code: number | null; stdout: string; stderr: string };
type Gateway = { executions(options: Record<string, unknown>): Promise<{ items: Result[] }> };

/** What the scenarios need from the test. */
export interface ExecutionsAcrossProcesses {
  readonly expect: (value: unknown) => {
    toBe(expected: unknown): void;
    toEqual(expected: unknown): void;
    toHaveLength(length: number): void;
    toMatchObject(expected: unknown): void;
  };
  /** A fresh folder of the test's own. */
  readonly dir: string;
  /** The fixture's first two arguments: where the shared store is, and a scope of its own. */
  readonly storeArgs: readonly [string, string];
  /** Runs the package's call-once.mjs with the store arguments first, to its exit. */
  runHost(args: readonly string[]): Promise<Run>;
  /** Starts it and resolves once its tool runs (its record is written by then). */
  startHost(args: readonly string[]): { child: ChildProcess; ready: Promise<void> };
  /** A gateway of this process over the same store and scope, closed after `use`. */
  withGateway(use: (gateway: Gateway) => Promise<void>): Promise<void>;
}

const lastLine = (stdout: string): Result =>
  JSON.parse(stdout.trim().split('\n').at(-1)!) as Result;

const logLines = async (log: string): Promise<string[]> =>
  (await readFile(log, 'utf8')).trim().split('\n');

/** Two processes deliver the same call at once: the tool runs once, both answer its result. */
export async function racingDeliveriesRunOnce(at: ExecutionsAcrossProcesses): Promise<void> {
  const { expect } = at;
  const log = path.join(at.dir, 'log.txt');
  const startAt = String(Date.now() + 4_000);
  const args = [...at.storeArgs, path.join(at.dir, 'results'), log, 'call_race', 'write', startAt];
  const runs = await Promise.all([at.runHost(args), at.runHost(args)]);
  for (const run of runs) {
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
  }
  expect(await logLines(log)).toHaveLength(1);
  const results = runs.map((run) => lastLine(run.stdout));
  expect(results.filter((result) => result['replayed'] === true)).toHaveLength(1);
  const [first, second] = results.map(({ replayed: _, execution_id: __, ...result }) => result);
  expect(first).toMatchObject({ ok: true, n: 1 });
  expect(second).toEqual(first);
  // Listed for its account only.
  await at.withGateway(async (gateway) => {
    const mine = await gateway.executions({ principal: { accountId: 'acct-a' } });
    expect(mine.items.map((item) => [item['callId'], item['outcome'], item['attempt']])).toEqual([
      ['call_race', 'succeeded', 1],
    ]);
    expect((await gateway.executions({ principal: { accountId: 'other' } })).items).toEqual([]);
  });
}

/**
 * A process killed mid-call leaves a record the next process reports as unknown once past its
 * deadline; replayed by another process, the call does not run again.
 */
export async function killedMidCallIsUnknown(at: ExecutionsAcrossProcesses): Promise<void> {
  const { expect } = at;
  const log = path.join(at.dir, 'log.txt');
  const args = [...at.storeArgs, path.join(at.dir, 'results'), log, 'call_killed', 'hang', '0'];
  const { child, ready } = at.startHost(args);
  await ready;
  child.kill('SIGKILL');
  await at.withGateway(async (gateway) => {
    const principal = { accountId: 'acct-a' };
    const [started] = (await gateway.executions({ principal })).items;
    expect(started).toMatchObject({ callId: 'call_killed', status: 'started', outcome: 'running' });
    // Past its deadline (the tool's timeout plus the gateway's margin) it is unknown.
    const deadlineAt = Number(started?.['deadlineAt']);
    await new Promise((resolve) => setTimeout(resolve, deadlineAt - Date.now() + 50));
    const { items } = await gateway.executions({ principal, outcome: 'unknown' });
    expect(items.map((item) => [item['callId'], item['status'], item['outcome']])).toEqual([
      ['call_killed', 'started', 'unknown'],
    ]);
    const replay = await at.runHost(args);
    expect(replay.stderr).toBe('');
    expect(lastLine(replay.stdout)).toMatchObject({
      ok: false,
      error_type: 'outcome_unknown',
      outcome: 'unknown',
    });
    expect(await logLines(log)).toHaveLength(1);
    expect((await gateway.executions({ principal: { accountId: 'other' } })).items).toEqual([]);
  });
}
