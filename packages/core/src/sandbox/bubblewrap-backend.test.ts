import { existsSync, readFileSync, realpathSync } from 'node:fs';
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import net from 'node:net';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { KsadkError } from '../errors/ksadk-error.js';
import { createBubblewrapBackend } from './bubblewrap-backend.js';
import type { SandboxBackend, SandboxSession } from './sandbox-backend.js';
import { pidsWithMarker, tempDir, uniqueSleep, waitFor } from './test-fixtures/process-probes.js';

// Real bwrap: these tests need it on PATH (Debian: apt-get install bubblewrap).
const backend: SandboxBackend = createBubblewrapBackend();

describe('bubblewrap backend', () => {
  let session: SandboxSession;
  let outside: string;
  let repoSecret: string;
  beforeAll(async () => {
    outside = await tempDir('ksadk-bwrap-outside-');
    await writeFile(path.join(outside, 'secret.txt'), 'outside-secret-content');
    // A secret inside the repository (the host's working tree) must be invisible too.
    repoSecret = path.join(process.cwd(), `.ksadk-bwrap-test-secret-${process.pid}`);
    await writeFile(repoSecret, 'repo-secret-content');
  });
  afterAll(async () => {
    await rm(outside, { recursive: true, force: true });
    await rm(repoSecret, { force: true });
  });
  beforeEach(async () => {
    session = await backend.createSession({ sessionId: 'bwrap-test' });
  });
  afterEach(async () => {
    await session.kill();
  });

  it('is named bubblewrap and isolated', () => {
    expect(backend.name).toBe('bubblewrap');
    expect(backend.isolated).toBe(true);
    expect(session.id).toBe('bubblewrap:bwrap-test');
  });

  it('refuses to exist without bwrap: a setup error naming the Debian package, never an unisolated run', () => {
    let error: unknown;
    try {
      createBubblewrapBackend({ env: { PATH: '/nonexistent-bin' } });
    } catch (caught) {
      error = caught;
    }
    expect(KsadkError.isInstance(error)).toBe(true);
    expect((error as KsadkError).code).toBe('setup');
    expect((error as KsadkError).message).toMatch(/apt-get install bubblewrap/);
    expect(() => createBubblewrapBackend({ bwrapPath: '/nonexistent/bwrap' })).toThrow(
      /bubblewrap/,
    );
  });

  it('runs commands in the session root, which is writable and shared with the host', async () => {
    await session.writeFile('in.txt', 'from host');
    const result = await session.run({
      argv: ['sh', '-c', 'pwd; cat in.txt; echo from-sandbox > out.txt'],
      timeoutMs: 10_000,
    });
    expect(result).toMatchObject({ ok: true, stdout: `${session.root}\nfrom host` });
    expect(await readFile(path.join(session.root, 'out.txt'), 'utf8')).toBe('from-sandbox\n');
  });

  it('runs node (the host binary) inside', async () => {
    const result = await session.run({
      argv: [process.execPath, '-e', 'console.log(process.version, 6 * 7)'],
      timeoutMs: 20_000,
    });
    expect(result).toMatchObject({ ok: true, stdout: `${process.version} 42\n` });
  }, 30_000);

  it('cannot read files outside its directories', async () => {
    // The running Node's folder is bound read-only (so `node` runs inside): when it lives under
    // a home folder (CI's Node 22 and 24 from npm, nvm), that folder is there as a bare path to it.
    const nodePath = realpathSync(process.execPath).split('/').filter(Boolean);
    const nodeTop = `/${nodePath[0]}`;
    const targets = [path.join(outside, 'secret.txt'), repoSecret, '/etc/shadow', '/root'];
    for (const target of targets.filter((entry) => entry !== nodeTop)) {
      const result = await session.run({ argv: ['cat', target], timeoutMs: 10_000 });
      expect(result.ok).toBe(false);
      expect(result.stdout).toBe('');
      expect(result.stderr).toMatch(/No such file or directory/);
    }
    for (let depth = 1; depth < nodePath.length - 1; depth += 1) {
      const dir = `/${nodePath.slice(0, depth).join('/')}`;
      if (/^\/(usr|bin|sbin|lib\w*)$/.test(dir)) break;
      const shown = await session.run({ argv: ['ls', '-A', dir], timeoutMs: 10_000 });
      expect(shown.stdout.split('\n').filter(Boolean)).toEqual([nodePath[depth]]);
    }
    const listing = await session.run({ argv: ['ls', '/'], timeoutMs: 10_000 });
    if (nodeTop !== '/home')
      expect(listing.stdout.split('\n').filter(Boolean).sort()).not.toContain('home');
    expect(listing.stdout).not.toContain('work');
    const etc = await session.run({ argv: ['ls', '/etc'], timeoutMs: 10_000 });
    expect(etc.stdout).not.toMatch(/shadow|sudoers|ssh\b/);
  });

  it('cannot write outside its directories; /tmp inside is private', async () => {
    const hostTarget = path.join(outside, 'planted.txt');
    const marker = `ksadk-bwrap-tmp-${process.pid}-${Date.now()}`;
    const result = await session.run({
      argv: [
        'sh',
        '-c',
        `echo x > ${hostTarget}; echo x > /usr/planted; echo x > /planted; echo private > /tmp/${marker} && cat /tmp/${marker}`,
      ],
      timeoutMs: 10_000,
    });
    expect(result.stdout).toBe('private\n');
    expect(result.stderr).toMatch(/Read-only file system|No such file or directory/);
    expect(existsSync(hostTarget)).toBe(false);
    expect(existsSync('/usr/planted')).toBe(false);
    expect(existsSync('/planted')).toBe(false);
    expect(existsSync(`/tmp/${marker}`)).toBe(false);
  });

  it('binds readOnlyPaths read-only', async () => {
    const readOnly = await backend.createSession({ sessionId: 'ro', readOnlyPaths: [outside] });
    try {
      const result = await readOnly.run({
        argv: ['sh', '-c', `cat ${outside}/secret.txt; echo y > ${outside}/planted.txt`],
        timeoutMs: 10_000,
      });
      expect(result.stdout).toBe('outside-secret-content');
      expect(result.stderr).toMatch(/Read-only file system/);
      expect(existsSync(path.join(outside, 'planted.txt'))).toBe(false);
    } finally {
      await readOnly.kill();
    }
    for (const readOnlyPaths of [['/nonexistent-ksadk'], ['/'], ['/usr/..'], ['relative']]) {
      await expect(
        backend.createSession({ sessionId: 'ro2', readOnlyPaths }),
      ).rejects.toMatchObject({
        code: 'invalid_config',
      });
    }
  });

  describe('network', () => {
    let server: net.Server;
    let port: number;
    let connections = 0;
    const connect = (target: number) => [
      process.execPath,
      '-e',
      `const s = require('net').connect(${target}, '127.0.0.1', () => { console.log('connected'); s.end(); });
       s.on('error', (e) => { console.log('failed', e.code); process.exitCode = 2; });`,
    ];
    beforeAll(async () => {
      server = net.createServer((socket) => {
        connections += 1;
        socket.end();
      });
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      port = (server.address() as net.AddressInfo).port;
    });
    afterAll(async () => {
      await new Promise((resolve) => server.close(resolve));
    });

    it('cannot reach a server on the host loopback by default', async () => {
      const before = connections;
      const result = await session.run({ argv: connect(port), timeoutMs: 20_000 });
      expect(result.ok).toBe(false);
      expect(result.stdout).toMatch(/failed (ECONNREFUSED|ENETUNREACH)/);
      expect(connections).toBe(before);
    }, 30_000);

    it('can with network: true', async () => {
      const networked = await backend.createSession({ sessionId: 'net', network: true });
      try {
        const before = connections;
        const result = await networked.run({ argv: connect(port), timeoutMs: 20_000 });
        expect(result).toMatchObject({ ok: true, stdout: 'connected\n' });
        expect(connections).toBe(before + 1);
      } finally {
        await networked.kill();
      }
    }, 30_000);
  });

  it('passes only the allowlisted environment', async () => {
    vi.stubEnv('KSADK_TEST_SECRET_TOKEN', 'bwrap-host-secret-0123456789');
    const local = await createBubblewrapBackend().createSession({
      sessionId: 'env',
      env: { SESSION_VAR: 's' },
    });
    try {
      const result = await local.run({
        argv: ['env'],
        env: { COMMAND_VAR: 'c' },
        timeoutMs: 10_000,
      });
      expect(result.stdout).not.toContain('bwrap-host-secret');
      const names = result.stdout
        .trim()
        .split('\n')
        .map((line) => line.split('=')[0]);
      const allowed = [
        'PATH',
        'HOME',
        'LANG',
        'LC_ALL',
        'TZ',
        'SESSION_VAR',
        'COMMAND_VAR',
        'PWD',
        // The command tree's marker (a random id).
        'KSADK_PROCESS_TREE',
      ];
      expect(names.filter((name) => !allowed.includes(name!))).toEqual([]);
      expect(names).toEqual(expect.arrayContaining(['PATH', 'HOME', 'SESSION_VAR', 'COMMAND_VAR']));
    } finally {
      await local.kill();
    }
  });

  it('kills the whole tree at the timeout, including processes that left the process group', async () => {
    const marker = uniqueSleep();
    // setsid puts the grandchild in a new session: only the pid namespace can take it down.
    const result = await session.run({
      argv: [
        'bash',
        '-c',
        `setsid sleep ${marker} & sleep ${marker} & echo started; sleep ${marker}`,
      ],
      timeoutMs: 800,
    });
    expect(result).toMatchObject({
      timed_out: true,
      error_type: 'tool_timeout',
      stdout: 'started\n',
    });
    expect(await waitFor(() => pidsWithMarker(marker).length === 0)).toBe(true);
  }, 15_000);

  it('kills background processes when the program exits', async () => {
    const marker = uniqueSleep();
    const started = Date.now();
    const result = await session.run({
      argv: ['bash', '-c', `setsid sleep ${marker} & echo done`],
      timeoutMs: 20_000,
    });
    expect(result).toMatchObject({ ok: true, stdout: 'done\n' });
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(await waitFor(() => pidsWithMarker(marker).length === 0)).toBe(true);
  }, 15_000);

  it('kill() takes down running sandboxes', async () => {
    const local = await backend.createSession({ sessionId: 'kill' });
    const marker = uniqueSleep();
    const running = local.run({ argv: ['sleep', marker], timeoutMs: 60_000 });
    await waitFor(() => pidsWithMarker(marker).length > 0);
    await local.kill();
    expect((await running).error_type).toBe('session_killed');
    expect(await waitFor(() => pidsWithMarker(marker).length === 0)).toBe(true);
    expect(existsSync(local.root)).toBe(false);
  }, 15_000);

  it('kill() right after a start never leaves a sandbox behind (bwrap killed before its child is armed)', async () => {
    // Killing bwrap between its clone() and the child's parent-death signal used to leave the
    // namespace running; the leader's descendants are now killed too.
    const leaks: string[] = [];
    for (let attempt = 0; attempt < 40; attempt += 1) {
      const local = await backend.createSession({ sessionId: `race-${attempt}` });
      const marker = uniqueSleep();
      const running = local.run({ argv: ['sleep', marker], timeoutMs: 60_000 });
      await new Promise((resolve) => setTimeout(resolve, attempt % 8));
      await local.kill();
      await running;
      if (!(await waitFor(() => pidsWithMarker(marker).length === 0, 2_000))) leaks.push(marker);
    }
    expect(leaks).toEqual([]);
  }, 60_000);

  it('host file operations cannot be redirected outside by a command swapping a directory for a symlink', async () => {
    // The command flips `d` between a directory and a symlink to a host directory it cannot see
    // (tight rename loop), hoping the host follows the link on its next write or read.
    const flipper = `
      const fs = require('fs');
      fs.mkdirSync('x.dir'); fs.symlinkSync(${JSON.stringify(outside)}, 'x.lnk');
      const flip = (from) => {
        try { fs.renameSync(from, 'd'); fs.renameSync('d', from); }
        catch { try { fs.rmSync('d', { recursive: true, force: true }); } catch {} }
      };
      const end = Date.now() + 3000;
      while (Date.now() < end) { flip('x.dir'); flip('x.lnk'); }`;
    const flipping = session.run({ argv: [process.execPath, '-e', flipper], timeoutMs: 10_000 });
    let flipperDone = false;
    void flipping.then(() => {
      flipperDone = true;
    });
    await new Promise((resolve) => setTimeout(resolve, 300));
    let written = 0;
    // Race the flipper for as long as it runs (bounded by time, not by a count that a loaded
    // machine may not reach in the test's limit).
    for (let attempt = 0; !flipperDone && attempt < 100_000; attempt += 1) {
      await session.writeFile('d/f.txt', 'host write').then(
        () => {
          written += 1;
        },
        () => undefined,
      );
      await session.readFile('d/secret.txt').then(
        (bytes) => expect(Buffer.from(bytes).toString()).not.toBe('outside-secret-content'),
        () => undefined,
      );
    }
    await flipping;
    expect(existsSync(path.join(outside, 'f.txt'))).toBe(false);
    expect(written).toBeGreaterThan(0);
  }, 30_000);

  it('runs 20 sandboxed commands at once', async () => {
    const results = await Promise.all(
      Array.from({ length: 20 }, (_, index) =>
        session.run({ argv: ['sh', '-c', 'echo "$1"', 'sh', String(index)], timeoutMs: 20_000 }),
      ),
    );
    results.forEach((result, index) => {
      expect(result.stdout).toBe(`${index}\n`);
    });
  }, 30_000);

  it('reports a missing program as spawn_failed and keeps cwd confined', async () => {
    const missing = await session.run({ argv: ['ksadk-no-such-program'], timeoutMs: 10_000 });
    expect(missing).toMatchObject({ ok: false, exit_code: null, error_type: 'spawn_failed' });
    await mkdir(path.join(session.root, 'sub'));
    const sub = await session.run({ argv: ['pwd'], cwd: 'sub', timeoutMs: 10_000 });
    expect(sub.stdout).toBe(`${session.root}/sub\n`);
    const escaped = await session.run({ argv: ['pwd'], cwd: '..', timeoutMs: 10_000 });
    expect(escaped.error_type).toBe('path_outside_sandbox');
  });

  it('hostRoot: the host directory is the only writable place and stays after kill', async () => {
    const base = await tempDir();
    try {
      const local = await backend.createSession({
        sessionId: 'host',
        hostRoot: path.join(base, 'r'),
      });
      await local.run({
        argv: ['sh', '-c', 'echo kept > kept.txt; echo no > ../sibling.txt'],
        timeoutMs: 10_000,
      });
      await local.kill();
      expect(readFileSync(path.join(base, 'r', 'kept.txt'), 'utf8')).toBe('kept\n');
      expect(existsSync(path.join(base, 'sibling.txt'))).toBe(false);
    } finally {
      await rm(base, { recursive: true, force: true });
    }
  });
});
