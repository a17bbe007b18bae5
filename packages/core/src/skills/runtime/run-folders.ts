import { lstat, mkdir, readdir } from 'node:fs/promises';
import path from 'node:path';
import { removeNoFollow, writeExclusive } from '../../util/no-follow-files.js';
import { safePathSegment } from '../../util/safe-segment.js';

const RUN_NAME = /^run-(\d{13})-[0-9a-f]{12}$/;
/** Runs in progress in this process (their host folders): never pruned. */
const activeRuns = new Set<string>();
/** A run older than its time limit and this is over, whoever started it. */
const FINISHED_AFTER_MS = 60_000;

/**
 * Removes all but the newest `keep` run folders of a session folder — only runs that are over: not
 * running here, and either marked done (`<run>.done` beside it, where no sandbox can write) or
 * older than the time limit allows (a run of another process). Each goes through a removal that
 * follows no link at any depth. Best effort: a failure leaves the folder for the next run.
 */
async function pruneRuns(sessionDir: string, keep: number, timeoutMs: number): Promise<void> {
  const entries = await readdir(sessionDir).catch(() => [] as string[]);
  const done = new Set(entries.filter((name) => name.endsWith('.done')));
  const runs = entries.filter((name) => RUN_NAME.test(name)).sort();
  const now = Date.now();
  for (const name of runs.slice(0, Math.max(0, runs.length - keep))) {
    if (activeRuns.has(path.join(sessionDir, name))) continue;
    const started = Number(RUN_NAME.exec(name)![1]);
    if (!done.has(`${name}.done`) && now - started < timeoutMs + FINISHED_AFTER_MS) continue;
    await removeNoFollow(sessionDir, name).catch(() => undefined);
    await removeNoFollow(sessionDir, `${name}.done`).catch(() => undefined);
  }
}

/**
 * Makes a run's own folder (`<runsDir>/<account>/<session>/<run>`), marks it running, and prunes
 * the session's old runs.
 */
export async function openRunFolder(
  runsDir: string,
  request: { readonly accountId?: string | undefined; readonly sessionId?: string | undefined },
  runId: string,
  limits: { keepRuns: number; timeoutMs: number },
): Promise<string> {
  const sessionDir = path.join(
    runsDir,
    safePathSegment(request.accountId ?? ''),
    safePathSegment(request.sessionId ?? ''),
  );
  const hostRoot = path.join(sessionDir, runId);
  await mkdir(hostRoot, { recursive: true, mode: 0o700 });
  if (!(await lstat(hostRoot)).isDirectory())
    throw new Error('the run directory is not a directory');
  activeRuns.add(hostRoot);
  await pruneRuns(sessionDir, limits.keepRuns, limits.timeoutMs);
  return hostRoot;
}

/** Marks a run as over, beside its folder (out of its sandbox's reach). */
export async function closeRunFolder(hostRoot: string): Promise<void> {
  activeRuns.delete(hostRoot);
  await writeExclusive(path.dirname(hostRoot), `${path.basename(hostRoot)}.done`, '').catch(
    () => undefined,
  );
}
