import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { KsadkError } from '../errors/ksadk-error.js';
import { createFakeE2BProvider, type FakeE2BProvider } from '../testing/fake-e2b-provider.js';
import { registerSecret } from '../util/redact.js';
import { createE2BBackend, type E2BBackendOptions } from './e2b-backend.js';
import { isNotFoundLike, retryDelay } from './startup-retry.js';

const providers: FakeE2BProvider[] = [];
function setup(
  knobs: Parameters<typeof createFakeE2BProvider>[0] = {},
  options: Partial<E2BBackendOptions> = {},
) {
  const provider = createFakeE2BProvider(knobs);
  providers.push(provider);
  const backend = createE2BBackend({
    provider,
    templateId: 'ksadk-test',
    startupRetryDelayMs: 1,
    env: {},
    ...options,
  });
  return { provider, backend };
}

afterEach(async () => {
  for (const provider of providers.splice(0)) {
    // Whatever a test did, no sandbox is left running.
    expect(provider.live()).toEqual([]);
    await provider.cleanup();
  }
});

describe('e2b backend (fake provider)', () => {
  it('needs a template id, naming the variable', () => {
    let error: unknown;
    try {
      createE2BBackend({ provider: createFakeE2BProvider() });
    } catch (caught) {
      error = caught;
    }
    expect((error as KsadkError).code).toBe('setup');
    expect((error as KsadkError).message).toContain('KSADK_SANDBOX_TEMPLATE_ID');
    expect(() => createE2BBackend({ templateId: '  ' })).toThrow(/KSADK_SANDBOX_TEMPLATE_ID/);
  });

  it('creates a sandbox from the template, internet off by default, session env passed natively', async () => {
    const { provider, backend } = setup();
    expect(backend).toMatchObject({ name: 'e2b', isolated: true });
    const session = await backend.createSession({
      sessionId: 's1',
      env: { GREETING: "hello $(id) 'world'" },
      lifetimeMs: 120_000,
    });
    try {
      expect(session.id).toBe('e2b:s1');
      expect(provider.creates).toHaveLength(1);
      expect(provider.creates[0]).toMatchObject({
        template: 'ksadk-test',
        options: {
          allowInternetAccess: false,
          timeoutMs: 120_000,
          envs: { GREETING: "hello $(id) 'world'" },
          metadata: { runtime: 'ksadk', session_id: 's1' },
        },
      });
      const result = await session.run({
        argv: ['sh', '-c', 'printf "%s|%s" "$GREETING" "$EXTRA"'],
        env: { EXTRA: 'x; rm -rf /' },
        timeoutMs: 10_000,
      });
      expect(result).toMatchObject({ ok: true, stdout: "hello $(id) 'world'|x; rm -rf /" });
      const call = provider.runs.at(-1)!;
      // Variables travel as SDK options, never inside the command line.
      expect(call.cmd).not.toContain('rm -rf');
      expect(call.options.envs).toEqual({ GREETING: "hello $(id) 'world'", EXTRA: 'x; rm -rf /' });
      expect(call.options.cwd).toBe('/home/user/workspace');
    } finally {
      await session.kill();
    }
  });

  it('allows internet only when configured (backend option or session network)', async () => {
    const on = setup({}, { allowInternetAccess: true });
    await (await on.backend.createSession({ sessionId: 'a' })).kill();
    expect(on.provider.creates[0]!.options.allowInternetAccess).toBe(true);
    const session = setup();
    await (await session.backend.createSession({ sessionId: 'b', network: true })).kill();
    expect(session.provider.creates[0]!.options.allowInternetAccess).toBe(true);
  });

  it('quotes a hostile argv so the shell passes it on unchanged', async () => {
    const { backend } = setup();
    const session = await backend.createSession({ sessionId: 'argv' });
    try {
      const hostile = ["'; touch pwned; '", '$(touch pwned2)', '`id`', 'a\nb', '*', '', '\\', '!x'];
      const result = await session.run({
        argv: ['node', '-e', 'console.log(JSON.stringify(process.argv.slice(1)))', ...hostile],
        timeoutMs: 10_000,
      });
      expect(JSON.parse(result.stdout)).toEqual(hostile);
      const listed = await session.run({ argv: ['ls'], timeoutMs: 10_000 });
      expect(listed.stdout).not.toContain('pwned');
    } finally {
      await session.kill();
    }
  });

  it('maps a non-zero exit (CommandExitError) to a result with its output', async () => {
    const { backend } = setup();
    const session = await backend.createSession({ sessionId: 'exit' });
    try {
      const result = await session.run({
        argv: ['sh', '-c', 'echo out; echo err >&2; exit 7'],
        timeoutMs: 10_000,
      });
      expect(result).toMatchObject({
        ok: false,
        exit_code: 7,
        stdout: 'out\n',
        stderr: 'err\n',
        error_type: null,
        timed_out: false,
      });
    } finally {
      await session.kill();
    }
  });

  it('maps SDK timeouts, hung SDK calls and aborts', async () => {
    const { backend } = setup({ hangOn: (cmd) => cmd.includes('hang') });
    const session = await backend.createSession({ sessionId: 'time' });
    try {
      const timedOut = await session.run({ argv: ['sleep', '30'], timeoutMs: 300 });
      expect(timedOut).toMatchObject({
        ok: false,
        timed_out: true,
        error_type: 'tool_timeout',
        exit_code: null,
      });
      // An SDK call that never settles still ends: the limit plus a grace (at least 1 s).
      const started = Date.now();
      const hung = await session.run({ argv: ['hang'], timeoutMs: 300 });
      expect(hung).toMatchObject({ timed_out: true, error_type: 'tool_timeout' });
      expect(Date.now() - started).toBeLessThan(3_000);
      const controller = new AbortController();
      setTimeout(() => controller.abort(), 100);
      const aborted = await session.run({
        argv: ['hang'],
        timeoutMs: 60_000,
        signal: controller.signal,
      });
      expect(aborted.error_type).toBe('tool_aborted');
      const before = await session.run({
        argv: ['true'],
        timeoutMs: 1_000,
        signal: AbortSignal.abort(),
      });
      expect(before.error_type).toBe('tool_aborted');
    } finally {
      await session.kill();
    }
  }, 20_000);

  it('redacts the API key, registered secrets and secret-looking session values from every text field', async () => {
    registerSecret('registered-e2b-secret-31337');
    const { backend } = setup(
      {
        throwOn: (cmd) =>
          cmd.includes('boom')
            ? new Error('failed with key e2b_live_key_0123456789 and tok-session-secret-99')
            : undefined,
      },
      { env: { E2B_API_KEY: 'e2b_live_key_0123456789' } },
    );
    const session = await backend.createSession({
      sessionId: 'redact',
      env: { SERVICE_TOKEN: 'tok-session-secret-99', PLAIN: 'visible-value' },
    });
    try {
      const result = await session.run({
        argv: [
          'sh',
          '-c',
          'echo e2b_live_key_0123456789 $SERVICE_TOKEN $PLAIN; echo registered-e2b-secret-31337 >&2; exit 1',
        ],
        timeoutMs: 10_000,
      });
      expect(result.stdout).toBe('[REDACTED] [REDACTED] visible-value\n');
      expect(result.stderr).toBe('[REDACTED]\n');
      const failed = await session.run({ argv: ['boom'], timeoutMs: 10_000 });
      expect(failed.error_type).toBe('sandbox_error');
      expect(failed.error_message).not.toMatch(/e2b_live_key|tok-session-secret/);
      expect(failed.error_message).toContain('[REDACTED]');
    } finally {
      await session.kill();
    }
  });

  it('retries readiness on not-found errors, with capped exponential delays', async () => {
    const { provider, backend } = setup({ notReadyTimes: 3 });
    const session = await backend.createSession({ sessionId: 'retry' });
    await session.kill();
    expect(provider.runs.filter((run) => run.cmd === 'true')).toHaveLength(4);
    expect(
      [0, 1, 2, 3, 4, 5].map((attempt) => retryDelay({ attempts: 6, delayMs: 200 }, attempt)),
    ).toEqual([200, 400, 800, 1000, 1000, 1000]);
    expect(isNotFoundLike(Object.assign(new Error('x'), { name: 'SandboxNotFoundError' }))).toBe(
      true,
    );
    expect(isNotFoundLike(new Error('x'))).toBe(false);
  });

  it('kills the sandbox when readiness fails (attempts exhausted or an error not retried)', async () => {
    const exhausted = setup({ notReadyTimes: 10 }, { startupRetryAttempts: 3 });
    await expect(exhausted.backend.createSession({ sessionId: 'never' })).rejects.toMatchObject({
      code: 'setup',
    });
    expect(exhausted.provider.runs.filter((run) => run.cmd === 'true')).toHaveLength(3);
    expect(exhausted.provider.sandboxes[0]!.killed).toBe(true);

    const fatal = setup({ notReadyTimes: 1, notReadyErrorName: 'AuthenticationError' });
    await expect(fatal.backend.createSession({ sessionId: 'auth' })).rejects.toBeInstanceOf(
      KsadkError,
    );
    expect(fatal.provider.runs).toHaveLength(1);
    expect(fatal.provider.sandboxes[0]!.killed).toBe(true);
  });

  it('turns a failed create into a setup error', async () => {
    const { backend } = setup({ createError: new Error('401 invalid api key') });
    await expect(backend.createSession({ sessionId: 'x' })).rejects.toMatchObject({
      code: 'setup',
      message: expect.stringContaining('401'),
    });
  });

  it('always kills the sandbox on kill(), idempotently, even with commands running', async () => {
    const { provider, backend } = setup({ hangOn: (cmd) => cmd.includes('hang') });
    const session = await backend.createSession({ sessionId: 'kill' });
    const running = session.run({ argv: ['hang'], timeoutMs: 60_000 });
    await new Promise((resolve) => setTimeout(resolve, 50));
    await Promise.all([session.kill(), session.kill()]);
    expect((await running).error_type).toBe('session_killed');
    expect(provider.sandboxes[0]).toMatchObject({ killed: true, killCalls: 1 });
    expect((await session.run({ argv: ['true'], timeoutMs: 1_000 })).error_type).toBe(
      'session_closed',
    );
    await expect(session.readFile('a')).rejects.toMatchObject({ code: 'unsupported' });
  });

  it('reads, writes and lists files under the sandbox root; paths stay inside it', async () => {
    const { provider, backend } = setup();
    const session = await backend.createSession({ sessionId: 'files' });
    try {
      await session.writeFile('a/b.txt', 'hello');
      await session.writeFile('bin.dat', new Uint8Array([1, 2, 3]));
      const hostDir = provider.sandboxes[0]!.hostDir;
      expect(await readFile(path.join(hostDir, 'home/user/workspace/a/b.txt'), 'utf8')).toBe(
        'hello',
      );
      expect(new TextDecoder().decode(await session.readFile('a/b.txt'))).toBe('hello');
      expect(await session.listFiles('.')).toEqual(['a/b.txt', 'bin.dat']);
      await expect(session.readFile('bin.dat', { maxBytes: 2 })).rejects.toMatchObject({
        details: { reason: 'file_too_large' },
      });
      for (const bad of ['/etc/passwd', '../x', 'a/../../x', 'a\0b']) {
        await expect(session.writeFile(bad, 'x')).rejects.toMatchObject({ code: 'unsupported' });
      }
      const cwd = await session.run({ argv: ['pwd'], cwd: '../..', timeoutMs: 5_000 });
      expect(cwd.error_type).toBe('path_outside_sandbox');
      await expect(session.readFile('missing.txt')).rejects.toMatchObject({ code: 'internal' });
    } finally {
      await session.kill();
    }
  });

  it('keeps the tail of long output', async () => {
    const { backend } = setup();
    const session = await backend.createSession({ sessionId: 'tail' });
    try {
      const result = await session.run({
        argv: ['sh', '-c', 'echo HEAD; yes | head -c 100000; echo TAIL'],
        timeoutMs: 10_000,
        maxOutputBytes: 100,
      });
      expect(result.output_truncated).toBe(true);
      expect(result.stdout.endsWith('TAIL\n')).toBe(true);
      expect(Buffer.byteLength(result.stdout)).toBeLessThanOrEqual(100);
    } finally {
      await session.kill();
    }
  });
});
