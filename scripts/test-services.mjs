#!/usr/bin/env node
// Redis and PostgreSQL on 127.0.0.1 for the tests, from Debian's `redis-server` and `postgresql`.
//
//   node scripts/test-services.mjs start <state-dir>   starts both, prints `export KSADK_TEST_…=…` lines
//   node scripts/test-services.mjs stop <state-dir>    stops what `start` started (by pid) and removes the folder
//
// Tests import `testServices()` (see vitest global setups): it uses KSADK_TEST_REDIS_URL /
// KSADK_TEST_POSTGRES_URL when set (CI starts the servers once), else starts private servers
// for the run and stops them after. When a server cannot start, the tests that need it skip with
// a loud message — unless KSADK_TEST_SERVICES_REQUIRED=1 (set by .ci/run), where they fail.
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import {
  chownSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';

const isRoot = typeof process.getuid === 'function' && process.getuid() === 0;

/** A free TCP port on 127.0.0.1. */
function freePort() {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

function findBinary(name, extraDirs = []) {
  for (const dir of [...extraDirs, ...(process.env.PATH ?? '').split(path.delimiter)]) {
    const candidate = path.join(dir, name);
    if (dir && existsSync(candidate)) return candidate;
  }
  return undefined;
}

function postgresBinDirs() {
  const root = '/usr/lib/postgresql';
  if (!existsSync(root)) return [];
  return readdirSync(root)
    .sort((a, b) => Number(b) - Number(a))
    .map((version) => path.join(root, version, 'bin'));
}

async function waitFor(check, what, timeoutMs = 20_000) {
  const deadline = Date.now() + timeoutMs;
  let last;
  while (Date.now() < deadline) {
    try {
      if (await check()) return;
    } catch (error) {
      last = error;
    }
    await sleep(100);
  }
  throw new Error(
    `${what} did not come up within ${timeoutMs} ms${last ? `: ${last.message}` : ''}`,
  );
}

function canConnect(port) {
  return new Promise((resolve) => {
    import('node:net').then(({ connect }) => {
      const socket = connect({ host: '127.0.0.1', port }, () => {
        socket.end();
        resolve(true);
      });
      socket.on('error', () => resolve(false));
    });
  });
}

async function startRedis(dir) {
  const binary = findBinary('redis-server');
  if (!binary) throw new Error('redis-server is not installed (Debian package redis-server)');
  const port = await freePort();
  const data = path.join(dir, 'redis');
  mkdirSync(data, { recursive: true });
  const child = spawn(
    binary,
    [
      '--port',
      String(port),
      '--bind',
      '127.0.0.1',
      '--dir',
      data,
      '--save',
      '',
      '--appendonly',
      'no',
      '--daemonize',
      'no',
    ],
    { stdio: ['ignore', 'ignore', 'ignore'], detached: true },
  );
  child.unref();
  await waitFor(() => canConnect(port), 'redis-server');
  return { url: `redis://127.0.0.1:${port}`, pid: child.pid };
}

/** Runs a PostgreSQL binary as the `postgres` user when we are root (it refuses to run as root). */
function pgCommand(binary, args) {
  return isRoot ? ['runuser', ['-u', 'postgres', '--', binary, ...args]] : [binary, args];
}

async function startPostgres(dir) {
  const bins = postgresBinDirs();
  const initdb = findBinary('initdb', bins);
  const pgCtl = findBinary('pg_ctl', bins);
  if (!initdb || !pgCtl)
    throw new Error('PostgreSQL server binaries are not installed (Debian package postgresql)');
  const port = await freePort();
  const data = path.join(dir, 'postgres');
  mkdirSync(data, { recursive: true, mode: 0o700 });
  if (isRoot) {
    const uid = Number(execFileSync('id', ['-u', 'postgres'], { encoding: 'utf8' }).trim());
    const gid = Number(execFileSync('id', ['-g', 'postgres'], { encoding: 'utf8' }).trim());
    chownSync(dir, uid, gid);
    chownSync(data, uid, gid);
  }
  const [initCmd, initArgs] = pgCommand(initdb, [
    '-D',
    data,
    '-A',
    'trust',
    '-U',
    'ksadk',
    '-E',
    'UTF8',
    '--no-sync',
  ]);
  const init = spawnSync(initCmd, initArgs, { encoding: 'utf8' });
  if (init.status !== 0) throw new Error(`initdb failed: ${init.stderr || init.stdout}`);
  const options = `-h 127.0.0.1 -p ${port} -k ${data} -c fsync=off -c max_connections=200`;
  const [startCmd, startArgs] = pgCommand(pgCtl, [
    '-D',
    data,
    '-o',
    options,
    '-l',
    path.join(data, 'server.log'),
    '-w',
    'start',
  ]);
  const started = spawnSync(startCmd, startArgs, { encoding: 'utf8', timeout: 30_000 });
  if (started.status !== 0)
    throw new Error(`pg_ctl start failed: ${started.stderr || started.stdout}`);
  const pid = Number(readFileSync(path.join(data, 'postmaster.pid'), 'utf8').split('\n')[0]);
  await waitFor(() => canConnect(port), 'postgres');
  return { url: `postgres://ksadk@127.0.0.1:${port}/postgres`, pid, data, pgCtl };
}

/** Starts both servers in `dir`; records what to stop in `dir/services.json`. */
export async function startServices(dir) {
  mkdirSync(dir, { recursive: true });
  const state = {};
  const problems = [];
  try {
    state.redis = await startRedis(dir);
  } catch (error) {
    problems.push(`redis: ${error.message}`);
  }
  try {
    state.postgres = await startPostgres(dir);
  } catch (error) {
    problems.push(`postgres: ${error.message}`);
  }
  writeFileSync(path.join(dir, 'services.json'), JSON.stringify(state));
  return { redisUrl: state.redis?.url, postgresUrl: state.postgres?.url, problems };
}

/** Stops what {@link startServices} started in `dir` and removes the folder. */
export async function stopServices(dir) {
  const file = path.join(dir, 'services.json');
  if (existsSync(file)) {
    const state = JSON.parse(readFileSync(file, 'utf8'));
    if (state.postgres) {
      const [cmd, args] = pgCommand(state.postgres.pgCtl, [
        '-D',
        state.postgres.data,
        '-m',
        'immediate',
        '-w',
        'stop',
      ]);
      const stopped = spawnSync(cmd, args, { encoding: 'utf8', timeout: 20_000 });
      if (stopped.status !== 0) {
        try {
          process.kill(state.postgres.pid, 'SIGKILL');
        } catch {}
      }
    }
    if (state.redis) {
      try {
        process.kill(state.redis.pid, 'SIGTERM');
      } catch {}
    }
  }
  rmSync(dir, { recursive: true, force: true });
}

/**
 * For vitest global setups: the servers' URLs, started for this run when the environment names
 * none. Returns a `stop()` that stops only what it started.
 */
export async function testServices() {
  const given = {
    redisUrl: process.env.KSADK_TEST_REDIS_URL || undefined,
    postgresUrl: process.env.KSADK_TEST_POSTGRES_URL || undefined,
  };
  if (given.redisUrl && given.postgresUrl) return { ...given, problems: [], stop: async () => {} };
  const dir = mkdtempSync(path.join(tmpdir(), 'ksadk-services-'));
  const started = await startServices(dir);
  return {
    redisUrl: given.redisUrl ?? started.redisUrl,
    postgresUrl: given.postgresUrl ?? started.postgresUrl,
    problems: started.problems,
    stop: () => stopServices(dir),
  };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const [command, dir] = process.argv.slice(2);
  if (!dir || (command !== 'start' && command !== 'stop')) {
    console.error('usage: test-services.mjs start|stop <state-dir>');
    process.exit(2);
  }
  if (command === 'start') {
    const { redisUrl, postgresUrl, problems } = await startServices(path.resolve(dir));
    for (const problem of problems) console.error(`test services: ${problem}`);
    if (redisUrl) console.log(`export KSADK_TEST_REDIS_URL=${redisUrl}`);
    if (postgresUrl) console.log(`export KSADK_TEST_POSTGRES_URL=${postgresUrl}`);
  } else {
    await stopServices(path.resolve(dir));
  }
}
