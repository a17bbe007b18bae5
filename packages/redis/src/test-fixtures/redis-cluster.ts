// For this package's tests only: a real three-node Redis Cluster on 127.0.0.1, started from the
// Debian `redis-server` binary in a private folder and stopped (process group killed, folder
// removed) by `stop()`.
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { promisify } from 'node:util';
import { freePort } from '../test-support.js';

const run = promisify(execFile);

/** A running cluster: its nodes' addresses and a way to stop it. */
export interface TestRedisCluster {
  readonly nodes: readonly { host: string; port: number }[];
  stop(): Promise<void>;
}

/** Where a binary is on PATH, or `undefined`. */
export function binaryOnPath(name: string): string | undefined {
  for (const dir of (process.env.PATH ?? '').split(path.delimiter)) {
    if (dir && existsSync(path.join(dir, name))) return path.join(dir, name);
  }
  return undefined;
}

async function until(check: () => Promise<boolean>, what: string, timeoutMs = 30_000) {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  while (Date.now() < deadline) {
    try {
      if (await check()) return;
    } catch (error) {
      last = error;
    }
    await sleep(100);
  }
  throw new Error(`${what} within ${timeoutMs} ms${last ? `: ${String(last)}` : ''}`);
}

/**
 * Starts three masters (no replicas) with their slots assigned by `redis-cli --cluster create`,
 * and waits until every node reports `cluster_state:ok`.
 */
export async function startRedisCluster(): Promise<TestRedisCluster> {
  const server = binaryOnPath('redis-server');
  const cli = binaryOnPath('redis-cli');
  if (!server || !cli)
    throw new Error('redis-server and redis-cli are needed (Debian redis-server)');
  const dir = await mkdtemp(path.join(tmpdir(), 'ksadk-redis-cluster-'));
  const children: ChildProcess[] = [];
  const stop = async (): Promise<void> => {
    for (const child of children) {
      try {
        if (child.pid) process.kill(-child.pid, 'SIGKILL');
      } catch {
        // Gone already.
      }
    }
    await rm(dir, { recursive: true, force: true });
  };
  try {
    const ports: number[] = [];
    for (let i = 0; i < 3; i += 1) {
      const port = await freePort();
      const busPort = await freePort();
      const nodeDir = await mkdtemp(path.join(dir, 'node-'));
      const child = spawn(
        server,
        [
          '--port',
          String(port),
          '--cluster-port',
          String(busPort),
          '--bind',
          '127.0.0.1',
          '--cluster-enabled',
          'yes',
          '--cluster-config-file',
          path.join(nodeDir, 'nodes.conf'),
          '--dir',
          nodeDir,
          '--save',
          '',
          '--appendonly',
          'no',
        ],
        { stdio: 'ignore', detached: true },
      );
      children.push(child);
      ports.push(port);
    }
    const ping = async (port: number) =>
      (await run(cli, ['-h', '127.0.0.1', '-p', String(port), 'ping'])).stdout.trim() === 'PONG';
    for (const port of ports)
      await until(() => ping(port), `redis-server on ${port} did not answer`);
    await run(cli, [
      '--cluster',
      'create',
      ...ports.map((port) => `127.0.0.1:${port}`),
      '--cluster-replicas',
      '0',
      '--cluster-yes',
    ]);
    const ok = async (port: number) =>
      (await run(cli, ['-h', '127.0.0.1', '-p', String(port), 'cluster', 'info'])).stdout.includes(
        'cluster_state:ok',
      );
    for (const port of ports) await until(() => ok(port), `the cluster was not ready on ${port}`);
    return { nodes: ports.map((port) => ({ host: '127.0.0.1', port })), stop };
  } catch (error) {
    await stop();
    throw error;
  }
}
