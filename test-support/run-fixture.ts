// For the store packages' tests: run a fixture script in its own `node` process, TypeScript
// sources through tsx, and collect what it printed.
import { type ChildProcess, spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

/** Runs `fixture` with `args` from the package folder `cwd`; resolves whatever its exit. */
export function runFixtureProcess(
  fixture: URL,
  args: readonly string[],
  cwd: URL,
  timeoutMs = 50_000,
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(
      process.execPath,
      ['--conditions=@ksadk/source', '--import', 'tsx', fileURLToPath(fixture), ...args],
      { cwd: fileURLToPath(cwd), stdio: ['ignore', 'pipe', 'pipe'], timeout: timeoutMs },
    );
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      stdout += chunk;
    });
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
      stderr += chunk;
    });
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

/**
 * Starts `fixture` with `args` from the package folder `cwd` and resolves `ready` once it printed
 * `readyText` (rejects if it exits first); the test ends the child itself.
 */
export function startFixtureProcess(
  fixture: URL,
  args: readonly string[],
  cwd: URL,
  readyText: string,
): { child: ChildProcess; ready: Promise<void> } {
  const child = spawn(
    process.execPath,
    ['--conditions=@ksadk/source', '--import', 'tsx', fileURLToPath(fixture), ...args],
    { cwd: fileURLToPath(cwd), stdio: ['ignore', 'pipe', 'pipe'] },
  );
  const ready = new Promise<void>((resolve, reject) => {
    let out = '';
    child.stdout?.setEncoding('utf8').on('data', (chunk: string) => {
      out += chunk;
      if (out.includes(readyText)) resolve();
    });
    child.on('exit', () =>
      reject(new Error(`the fixture exited before printing ${readyText}: ${out}`)),
    );
  });
  return { child, ready };
}

/**
 * The fixture runner of one package's test support: `fixtureRunner(import.meta.url)` from its
 * `src/test-support.ts` runs `src/test-fixtures/<name>` from the package folder.
 */
export const fixtureRunner =
  (testSupportUrl: string) =>
  (
    name: string,
    args: readonly string[],
  ): Promise<{ code: number | null; stdout: string; stderr: string }> =>
    runFixtureProcess(
      new URL(`./test-fixtures/${name}`, testSupportUrl),
      args,
      new URL('..', testSupportUrl),
    );

/** The fixture starter of one package's test support (see {@link fixtureRunner}). */
export const fixtureStarter =
  (testSupportUrl: string) => (name: string, args: readonly string[], readyText: string) =>
    startFixtureProcess(
      new URL(`./test-fixtures/${name}`, testSupportUrl),
      args,
      new URL('..', testSupportUrl),
      readyText,
    );
