// For the store packages' tests: run a fixture script in its own `node` process, TypeScript
// sources through tsx, and collect what it printed.
import { spawn } from 'node:child_process';
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
