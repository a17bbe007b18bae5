import { existsSync, readFileSync } from 'node:fs';
import { mkdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { KsadkError } from '../errors/ksadk-error.js';
import { registerSecret } from '../util/redact.js';
import { createLocalProcessBackend } from './local-process-backend.js';
import type { SandboxSession } from './sandbox-backend.js';
import {
  isGone,
  pidsWithMarker,
  tempDir,
  uniqueSleep,
  waitFor,
} from './test-fixtures/process-probes.js';

const readPid = (session: SandboxSession, name: string): number =>
  Number(readFileSync(path.join(session.root, name), 'utf8').trim());

describe('local_process backend', () => {
  let session: SandboxSession;
  beforeEach(async () => {
    session = await createLocalProcessBackend().createSession({ sessionId: 'test' });
  });
  afterEach(async () => {
    await session.kill();
  });

  it('is named local_process, says it is not isolated, and labels sessions without host paths', async () => {
    const backend = createLocalProcessBackend();
    expect(backend.name).toBe('local_process');
    expect(backend.isolated).toBe(false);
    expect(session.id).toBe('local_process:test');
    expect(session.backend).toBe('local_process');
  });

  it('runs an argv with no shell: metacharacters reach the program byte for byte', async () => {
    const hostile = [
      '$(touch pwned)',
      '`touch pwned2`',
      '; rm -rf / #',
      '*',
      'it\'s "quoted"',
      'line\nbreak',
      '--inspect=0.0.0.0:9229',
      '-e',
      'ünïcödé ✓',
      '',
      '$HOME',
    ];
    await session.writeFile('argv.js', 'console.log(JSON.stringify(process.argv.slice(2)));');
    const result = await session.run({
      argv: [process.execPath, 'argv.js', ...hostile],
      timeoutMs: 10_000,
    });
    expect(result.ok).toBe(true);
    expect(JSON.parse(result.stdout)).toEqual(hostile);
    expect(existsSync(path.join(session.root, 'pwned'))).toBe(false);
    expect(existsSync(path.join(session.root, 'pwned2'))).toBe(false);
  });

  it('gives commands a minimal environment: none of the host variables but PATH and the locale', async () => {
    vi.stubEnv('KSADK_TEST_SECRET_TOKEN', 'host-secret-value-0123456789');
    vi.stubEnv('AWS_SECRET_ACCESS_KEY', 'aws-host-secret-0123456789');
    vi.stubEnv('LANG', 'C.UTF-8');
    const backend = createLocalProcessBackend();
    const local = await backend.createSession({
      sessionId: 'env',
      env: { SESSION_VAR: 's', BOTH: 'session' },
    });
    try {
      const result = await local.run({
        argv: ['env'],
        env: { COMMAND_VAR: 'c', BOTH: 'command' },
        timeoutMs: 10_000,
      });
      expect(result.ok).toBe(true);
      const seen = Object.fromEntries(
        result.stdout
          .trim()
          .split('\n')
          .map((line) => [line.slice(0, line.indexOf('=')), line.slice(line.indexOf('=') + 1)]),
      );
      expect(result.stdout).not.toContain('host-secret-value');
      expect(result.stdout).not.toContain('aws-host-secret');
      const allowed = [
        'PATH',
        'HOME',
        'LANG',
        'LC_ALL',
        'TZ',
        'SESSION_VAR',
        'COMMAND_VAR',
        'BOTH',
        // The command tree's marker (a random id): how what it starts is found when it ends.
        'KSADK_PROCESS_TREE',
      ];
      expect(Object.keys(seen).every((name) => allowed.includes(name))).toBe(true);
      expect(seen).toMatchObject({
        PATH: process.env['PATH'],
        HOME: local.root,
        LANG: 'C.UTF-8',
        SESSION_VAR: 's',
        COMMAND_VAR: 'c',
        BOTH: 'command',
      });
    } finally {
      await local.kill();
    }
  });

  it('copies only the passEnv names from the host environment it is given', async () => {
    const backend = createLocalProcessBackend({
      env: {
        PATH: process.env['PATH'],
        PASSED: 'yes',
        NOT_PASSED: 'no',
        GITHUB_TOKEN: 'ghp_xxxxxxxxxxxx',
      },
      passEnv: ['PASSED', 'ABSENT'],
    });
    const local = await backend.createSession({ sessionId: 'pass' });
    try {
      const result = await local.run({ argv: ['env'], timeoutMs: 10_000 });
      const names = result.stdout
        .trim()
        .split('\n')
        .map((line) => line.split('=')[0]);
      expect(names.sort()).toEqual(['HOME', 'KSADK_PROCESS_TREE', 'PASSED', 'PATH']);
    } finally {
      await local.kill();
    }
  });

  it('kills the whole process group at the timeout, grandchildren included, keeping partial output', async () => {
    const result = await session.run({
      argv: [
        'bash',
        '-c',
        'sleep 30 & echo $! > bg.pid; echo $$ > main.pid; echo started; sleep 30',
      ],
      timeoutMs: 500,
    });
    expect(result).toMatchObject({
      ok: false,
      timed_out: true,
      exit_code: null,
      error_type: 'tool_timeout',
      stdout: 'started\n',
    });
    expect(result.duration_ms).toBeLessThan(5_000);
    const pids = [readPid(session, 'bg.pid'), readPid(session, 'main.pid')];
    expect(await waitFor(() => pids.every(isGone))).toBe(true);
  }, 15_000);

  it('finishes when the program exits even though a background grandchild holds the pipes (and kills it)', async () => {
    const started = Date.now();
    const result = await session.run({
      argv: ['bash', '-c', 'sleep 30 & echo $! > bg.pid; echo done'],
      timeoutMs: 20_000,
    });
    expect(Date.now() - started).toBeLessThan(3_000);
    expect(result).toMatchObject({ ok: true, exit_code: 0, stdout: 'done\n', timed_out: false });
    expect(await waitFor(() => isGone(readPid(session, 'bg.pid')))).toBe(true);
  }, 15_000);

  it('a command that closes its output early but keeps running is still bounded by its timeout', async () => {
    const result = await session.run({
      argv: ['bash', '-c', 'echo early; exec 1>&- 2>&-; sleep 30'],
      timeoutMs: 500,
    });
    expect(result).toMatchObject({
      timed_out: true,
      stdout: 'early\n',
      error_type: 'tool_timeout',
    });
    const quiet = await session.run({
      argv: ['bash', '-c', 'echo early; exec 1>&- 2>&-; sleep 0.3; exit 4'],
      timeoutMs: 10_000,
    });
    expect(quiet).toMatchObject({ ok: false, exit_code: 4, timed_out: false, stdout: 'early\n' });
  }, 15_000);

  it('kills programs that ignore SIGTERM', async () => {
    const marker = uniqueSleep();
    const result = await session.run({
      argv: ['bash', '-c', `trap '' TERM HUP INT; sleep ${marker}; true`],
      timeoutMs: 300,
    });
    expect(result.timed_out).toBe(true);
    expect(await waitFor(() => pidsWithMarker(marker).length === 0)).toBe(true);
    const node = await session.run({
      argv: [
        process.execPath,
        '-e',
        'process.on("SIGTERM", () => {}); setInterval(() => {}, 1000)',
      ],
      timeoutMs: 300,
    });
    expect(node.timed_out).toBe(true);
  }, 15_000);

  it('keeps the tail of huge output with bounded memory', async () => {
    const before = process.memoryUsage().rss;
    let peak = before;
    const sampler = setInterval(() => {
      peak = Math.max(peak, process.memoryUsage().rss);
    }, 5);
    try {
      const result = await session.run({
        argv: ['bash', '-c', 'echo HEAD; yes | head -c 200000000; echo TAIL'],
        timeoutMs: 60_000,
      });
      expect(result.ok).toBe(true);
      expect(result.output_truncated).toBe(true);
      expect(Buffer.byteLength(result.stdout)).toBeLessThanOrEqual(1024 * 1024);
      expect(result.stdout.startsWith('y\n') || result.stdout.startsWith('\n')).toBe(true);
      expect(result.stdout).not.toContain('HEAD');
      expect(result.stdout.endsWith('y\nTAIL\n')).toBe(true);
    } finally {
      clearInterval(sampler);
    }
    // 200 MB went through; the process grew by far less.
    expect(peak - before).toBeLessThan(80 * 1024 * 1024);
  }, 60_000);

  it('cuts output to maxOutputBytes per stream without leaving half a character', async () => {
    const result = await session.run({
      argv: ['bash', '-c', 'for i in $(seq 1 500); do printf "é"; done; printf "é" >&2'],
      timeoutMs: 10_000,
      maxOutputBytes: 101,
    });
    expect(result.output_truncated).toBe(true);
    expect(result.stdout).toBe('é'.repeat(50));
    expect(result.stderr).toBe('é');
  });

  it('reports a program that cannot start as spawn_failed, never a rejection', async () => {
    const missing = await session.run({ argv: ['ksadk-no-such-program-xyz'], timeoutMs: 5_000 });
    expect(missing).toMatchObject({ ok: false, exit_code: null, error_type: 'spawn_failed' });
    expect(missing.error_message).toContain('ENOENT');
    const directory = await session.run({ argv: ['/'], timeoutMs: 5_000 });
    expect(directory.error_type).toBe('spawn_failed');
    for (const argv of [[], [''], ['echo', 'a\0b'], [42]] as unknown as string[][]) {
      const invalid = await session.run({ argv, timeoutMs: 5_000 });
      expect(invalid).toMatchObject({ ok: false, exit_code: null, error_type: 'invalid_command' });
    }
    const badEnv = await session.run({ argv: ['true'], env: { 'A=B': 'x' }, timeoutMs: 5_000 });
    expect(badEnv.error_type).toBe('invalid_env');
  });

  it('reports exit codes and deaths by signal', async () => {
    const exit = await session.run({
      argv: ['bash', '-c', 'echo out; echo err >&2; exit 3'],
      timeoutMs: 5_000,
    });
    expect(exit).toMatchObject({
      ok: false,
      exit_code: 3,
      stdout: 'out\n',
      stderr: 'err\n',
      error_type: null,
    });
    const signal = await session.run({ argv: ['bash', '-c', 'kill -SEGV $$'], timeoutMs: 5_000 });
    expect(signal).toMatchObject({ ok: false, exit_code: null, error_type: 'killed_by_signal' });
  });

  it('redacts registered secrets and secret-looking session values from stdout, stderr and error messages', async () => {
    registerSecret('sk-registered-secret-4242');
    const local = await createLocalProcessBackend().createSession({
      sessionId: 'redact',
      env: { SERVICE_API_TOKEN: 'tok-session-secret-777' },
    });
    try {
      const result = await local.run({
        argv: ['bash', '-c', 'echo sk-registered-secret-4242; echo "$SERVICE_API_TOKEN" >&2'],
        timeoutMs: 5_000,
      });
      expect(result.stdout).toBe('[REDACTED]\n');
      expect(result.stderr).toBe('[REDACTED]\n');
      const failed = await local.run({ argv: ['sk-registered-secret-4242'], timeoutMs: 5_000 });
      expect(failed.error_type).toBe('spawn_failed');
      expect(failed.error_message).not.toContain('sk-registered-secret-4242');
    } finally {
      await local.kill();
    }
  });

  it('caps every time limit at maxTimeoutMs, and invalid limits fall back to the cap', async () => {
    const backend = createLocalProcessBackend({ maxTimeoutMs: 300 });
    const local = await backend.createSession({ sessionId: 'cap' });
    try {
      for (const timeoutMs of [60_000, Number.NaN, 0, -5, Number.POSITIVE_INFINITY]) {
        const started = Date.now();
        const result = await local.run({ argv: ['sleep', '30'], timeoutMs });
        expect(result.timed_out).toBe(true);
        expect(Date.now() - started).toBeLessThan(3_000);
      }
    } finally {
      await local.kill();
    }
  }, 30_000);

  it('does not start a command whose signal is already aborted, and kills one aborted mid-run', async () => {
    const before = await session.run({
      argv: ['touch', 'ran'],
      timeoutMs: 5_000,
      signal: AbortSignal.abort(),
    });
    expect(before).toMatchObject({ ok: false, error_type: 'tool_aborted', exit_code: null });
    expect(existsSync(path.join(session.root, 'ran'))).toBe(false);

    const controller = new AbortController();
    setTimeout(() => controller.abort(), 300);
    const during = await session.run({
      argv: ['bash', '-c', 'echo $$ > main.pid; sleep 30'],
      timeoutMs: 20_000,
      signal: controller.signal,
    });
    expect(during).toMatchObject({ error_type: 'tool_aborted', timed_out: false, exit_code: null });
    expect(await waitFor(() => isGone(readPid(session, 'main.pid')))).toBe(true);
  }, 15_000);

  it('runs 50 commands at once, each with its own output', async () => {
    const results = await Promise.all(
      Array.from({ length: 50 }, (_, index) =>
        session.run({
          argv: ['sh', '-c', 'sleep 0.1; echo "$1"', 'sh', String(index)],
          timeoutMs: 20_000,
        }),
      ),
    );
    results.forEach((result, index) => {
      expect(result).toMatchObject({ ok: true, stdout: `${index}\n` });
    });
  }, 30_000);

  it('kill() stops running commands, removes the private root, is idempotent and closes the session', async () => {
    const local = await createLocalProcessBackend().createSession({ sessionId: 'kill' });
    const marker = uniqueSleep();
    const runs = [1, 2, 3].map(() => local.run({ argv: ['sleep', marker], timeoutMs: 60_000 }));
    await waitFor(() => pidsWithMarker(marker).length === 3);
    await Promise.all([local.kill(), local.kill()]);
    for (const result of await Promise.all(runs)) {
      expect(result).toMatchObject({ ok: false, error_type: 'session_killed', exit_code: null });
    }
    expect(pidsWithMarker(marker)).toEqual([]);
    expect(existsSync(local.root)).toBe(false);
    await local.kill();
    expect((await local.run({ argv: ['true'], timeoutMs: 1_000 })).error_type).toBe(
      'session_closed',
    );
    await expect(local.writeFile('a.txt', 'x')).rejects.toBeInstanceOf(KsadkError);
  }, 15_000);

  it('a host process that exits mid-command takes the command and its private root down with it', async () => {
    const marker = uniqueSleep();
    const script = path.join(session.root, 'host.mts');
    const backendFile = new URL('./local-process-backend.ts', import.meta.url).pathname;
    await writeFile(
      script,
      `import { createLocalProcessBackend } from ${JSON.stringify(backendFile)};
       const session = await createLocalProcessBackend().createSession({ sessionId: 'host-exit' });
       process.stdout.write(session.root);
       void session.run({ argv: ['sleep', ${JSON.stringify(marker)}], timeoutMs: 60_000 });
       setTimeout(() => process.exit(0), 500);`,
    );
    const { execFileSync } = await import('node:child_process');
    const childRoot = execFileSync(process.execPath, ['--import', 'tsx', script], {
      timeout: 20_000,
      encoding: 'utf8',
    });
    expect(await waitFor(() => pidsWithMarker(marker).length === 0)).toBe(true);
    // Its private root went with it.
    expect(childRoot).toContain('ksadk-sandbox-');
    expect(existsSync(childRoot)).toBe(false);
  }, 30_000);

  it('a host that exits while kill() is still removing the private root removes it anyway', async () => {
    const script = path.join(session.root, 'exit-mid-kill.mts');
    const backendFile = new URL('./local-process-backend.ts', import.meta.url).pathname;
    await writeFile(
      script,
      `import { mkdirSync, writeFileSync } from 'node:fs';
       import { createLocalProcessBackend } from ${JSON.stringify(backendFile)};
       const session = await createLocalProcessBackend().createSession({ sessionId: 'exit-mid-kill' });
       for (let d = 0; d < 100; d += 1) {
         mkdirSync(session.root + '/d' + d);
         for (let f = 0; f < 30; f += 1) writeFileSync(session.root + '/d' + d + '/f' + f, 'x');
       }
       process.stdout.write(session.root);
       void session.kill();
       setTimeout(() => process.exit(0), 0);`,
    );
    const { execFileSync } = await import('node:child_process');
    const childRoot = execFileSync(process.execPath, ['--import', 'tsx', script], {
      timeout: 20_000,
      encoding: 'utf8',
    });
    expect(childRoot).toContain('ksadk-sandbox-');
    expect(existsSync(childRoot)).toBe(false);
  }, 30_000);

  it('uses hostRoot when given: created with mode 0700, kept on kill', async () => {
    const base = await tempDir();
    const hostRoot = path.join(base, 'nested', 'root');
    const local = await createLocalProcessBackend().createSession({ sessionId: 'host', hostRoot });
    try {
      expect(local.root).toBe(hostRoot);
      expect((await stat(hostRoot)).mode & 0o777).toBe(0o700);
      await local.writeFile('kept.txt', 'kept');
      await local.kill();
      expect(await readFile(path.join(hostRoot, 'kept.txt'), 'utf8')).toBe('kept');
      await expect(
        createLocalProcessBackend().createSession({ sessionId: 'rel', hostRoot: 'relative/dir' }),
      ).rejects.toMatchObject({ code: 'invalid_config' });
    } finally {
      await rm(base, { recursive: true, force: true });
    }
  });

  it('confines the working directory: a cwd outside the root is a result, not a throw', async () => {
    await mkdir(path.join(session.root, 'sub'));
    const inside = await session.run({ argv: ['pwd'], cwd: 'sub', timeoutMs: 5_000 });
    expect(inside.stdout).toBe(`${session.root}/sub\n`);
    const outsideDir = await tempDir();
    const { symlink } = await import('node:fs/promises');
    await symlink(outsideDir, path.join(session.root, 'escape'));
    for (const cwd of ['..', '../..', '/tmp', 'sub/../../x', 'escape', 'a\0b']) {
      const result = await session.run({ argv: ['pwd'], cwd, timeoutMs: 5_000 });
      expect(result).toMatchObject({
        ok: false,
        exit_code: null,
        error_type: 'path_outside_sandbox',
      });
    }
    const missing = await session.run({ argv: ['pwd'], cwd: 'nope', timeoutMs: 5_000 });
    expect(missing.error_type).toBe('cwd_not_found');
    await rm(outsideDir, { recursive: true, force: true });
  });

  it('reads, writes and lists files under the root', async () => {
    await session.writeFile('a/b/c.txt', 'hello');
    await session.writeFile('bytes.bin', new Uint8Array([0, 1, 2, 255]));
    await writeFile(path.join(session.root, 'a', 'host.txt'), 'from host');
    expect(new TextDecoder().decode(await session.readFile('a/b/c.txt'))).toBe('hello');
    expect([...(await session.readFile('bytes.bin'))]).toEqual([0, 1, 2, 255]);
    expect(await session.listFiles('.')).toEqual(['a/b/c.txt', 'a/host.txt', 'bytes.bin']);
    expect(await session.listFiles('a/b')).toEqual(['a/b/c.txt']);
    expect(await session.listFiles('.', { maxEntries: 1 })).toHaveLength(1);
  });
});
