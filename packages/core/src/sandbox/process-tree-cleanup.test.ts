import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { createBubblewrapBackend } from './bubblewrap-backend.js';
import { createLocalProcessBackend } from './local-process-backend.js';
import type { SandboxBackend } from './sandbox-backend.js';

/** Host pids of live (not zombie) processes whose command line holds `needle`. */
function processesRunning(needle: string): number[] {
  const found: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      if (stat.slice(stat.lastIndexOf(')') + 2)[0] === 'Z') continue;
      if (readFileSync(`/proc/${entry}/cmdline`, 'utf8').split('\0').includes(needle))
        found.push(Number(entry));
    } catch {
      // Ended while we looked.
    }
  }
  return found;
}

async function until(check: () => boolean, ms: number): Promise<boolean> {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    if (check()) return true;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  return check();
}

describe.each([
  ['local_process', () => createLocalProcessBackend()],
  ['bubblewrap', () => createBubblewrapBackend()],
] as [string, () => SandboxBackend][])('a command on %s', (name, make) => {
  it('that exits leaves no setsid grandchild nor double-forked daemon behind', {
    timeout: 20_000,
  }, async () => {
    // Durations unique to this test name the processes in the host's process table.
    const grandchild = `${700 + Math.floor(Math.random() * 99)}.${process.pid}1`;
    const daemon = `${800 + Math.floor(Math.random() * 99)}.${process.pid}2`;
    const session = await make().createSession({ sessionId: `tree-${name}` });
    try {
      const result = await session.run({
        argv: [
          'sh',
          '-c',
          `setsid sleep ${grandchild} & (setsid sleep ${daemon} >/dev/null 2>&1 </dev/null &); sleep 0.3; echo started`,
        ],
        timeoutMs: 10_000,
      });
      expect(result).toMatchObject({ exit_code: 0, stdout: 'started\n' });
      expect(await until(() => processesRunning(grandchild).length === 0, 3000)).toBe(true);
      expect(await until(() => processesRunning(daemon).length === 0, 3000)).toBe(true);
    } finally {
      await session.kill();
      for (const pid of [...processesRunning(grandchild), ...processesRunning(daemon)])
        process.kill(pid, 'SIGKILL');
    }
  });

  it('killed at its time limit takes a setsid daemon with it', { timeout: 20_000 }, async () => {
    const daemon = `${900 + Math.floor(Math.random() * 99)}.${process.pid}3`;
    const session = await make().createSession({ sessionId: `tree-timeout-${name}` });
    try {
      const result = await session.run({
        argv: ['sh', '-c', `(setsid sleep ${daemon} >/dev/null 2>&1 </dev/null &); sleep 30`],
        timeoutMs: 800,
      });
      expect(result.timed_out).toBe(true);
      expect(await until(() => processesRunning(daemon).length === 0, 3000)).toBe(true);
    } finally {
      await session.kill();
      for (const pid of processesRunning(daemon)) process.kill(pid, 'SIGKILL');
    }
  });
});
