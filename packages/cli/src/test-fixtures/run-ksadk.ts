// For the CLI's tests: the built `ksadk` command run as a child process — on plain pipes, or on a
// real pseudo-terminal (util-linux `script`) for colours, progress and questions.
import { spawn } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, inject, it } from 'vitest';

declare module 'vitest' {
  export interface ProvidedContext {
    redisUrl: string;
    postgresUrl: string;
    serviceProblems: string[];
    servicesRequired: boolean;
  }
}

export const services = { redisUrl: inject('redisUrl'), postgresUrl: inject('postgresUrl') };

/** The built command (the test script builds the package first). */
export const KSADK = path.join(
  fileURLToPath(new URL('../..', import.meta.url)),
  'bin',
  'ksadk.mjs',
);

/** What a run printed and how it ended. */
export interface Run {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
  readonly ms: number;
}

/** The environment of a run: PATH only, plus `env` (nothing of this process's KSADK_* leaks in). */
const envOf = (env: Record<string, string>) => ({ PATH: process.env['PATH'] ?? '', ...env });

/** Runs `ksadk …` on pipes (not a terminal), with a wall-clock bound. */
export function ksadk(
  args: readonly string[],
  options: { env?: Record<string, string>; cwd?: string; input?: string; timeoutMs?: number } = {},
): Promise<Run> {
  const started = Date.now();
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [KSADK, ...args], {
      env: envOf(options.env ?? {}),
      cwd: options.cwd ?? process.cwd(),
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => {
      stdout += chunk;
    });
    child.stderr.on('data', (chunk) => {
      stderr += chunk;
    });
    child.stdin.end(options.input ?? '');
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(
        new Error(
          `ksadk ${args.join(' ')} ran over ${options.timeoutMs ?? 30_000} ms:\n${stdout}\n${stderr}`,
        ),
      );
    }, options.timeoutMs ?? 30_000);
    child.on('exit', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr, ms: Date.now() - started });
    });
  });
}

/** Escape sequences a terminal program writes between the words (cursor moves, colours). */
const CURSOR_MOVES = new RegExp(`${String.fromCharCode(27)}\\[[0-9;?]*[A-Za-z]`, 'g');

const quote = (value: string) => `'${value.replaceAll("'", "'\\''")}'`;

/**
 * Runs `ksadk …` on a pseudo-terminal (stdin, stdout and stderr all a TTY), typing `answers` one
 * line at a time once `prompt` shows. Returns everything the terminal showed.
 */
export function ksadkOnTerminal(
  args: readonly string[],
  options: {
    env?: Record<string, string>;
    answers?: string[];
    prompt?: RegExp;
    timeoutMs?: number;
  } = {},
): Promise<{ code: number | null; output: string }> {
  const command = [process.execPath, KSADK, ...args].map(quote).join(' ');
  return new Promise((resolve, reject) => {
    const child = spawn('script', ['-qefc', command, '/dev/null'], {
      env: { ...envOf(options.env ?? {}), TERM: 'xterm-256color' },
    });
    let output = '';
    let answeredAt = 0;
    const answers = [...(options.answers ?? [])];
    child.stdout.on('data', (chunk) => {
      output += chunk;
      // The question as the terminal shows it since the last answer, without cursor movements.
      const shown = output.slice(answeredAt).replace(CURSOR_MOVES, '');
      if (answers.length > 0 && options.prompt?.test(shown)) {
        answeredAt = output.length;
        child.stdin.write(`${answers.shift()}\n`);
      }
    });
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`ksadk ${args.join(' ')} on a terminal ran over the bound:\n${output}`));
    }, options.timeoutMs ?? 30_000);
    child.on('exit', (code) => {
      clearTimeout(timer);
      resolve({ code, output });
    });
  });
}

/** `describe` when the run has Redis and PostgreSQL; otherwise a loud skip, or a failure in CI. */
export function describeWithStores(name: string, body: () => void): void {
  const missing = !services.redisUrl || !services.postgresUrl;
  if (missing) {
    const why = `no Redis or PostgreSQL for "${name}": ${inject('serviceProblems').join('; ') || 'none started'}`;
    if (inject('servicesRequired')) {
      describe(name, () => {
        it('has its servers (KSADK_TEST_SERVICES_REQUIRED=1)', () => {
          throw new Error(why);
        });
      });
      return;
    }
    console.warn(`\n!!! SKIPPED ${why}. Install redis-server and postgresql.\n`);
  }
  describe.skipIf(missing)(name, body);
}
