import { execFile } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

const exampleDir = fileURLToPath(new URL('..', import.meta.url));
const run = promisify(execFile);

describe('the OpenAI Agents RunState example', () => {
  it('pauses, saves the run, and resumes it in other processes: the write runs once', async () => {
    const { stdout } = await run(
      process.execPath,
      ['--import', 'tsx', path.join(exampleDir, 'src/main.ts')],
      {
        cwd: exampleDir,
        // Offline whatever the machine has: no OPENAI_API_KEY.
        env: { PATH: process.env['PATH'] ?? '', HOME: process.env['HOME'] ?? '' },
        timeout: 120_000,
      },
    );
    const pids = [...stdout.matchAll(/\[process (\d+)\]/g)].map((match) => match[1]);
    expect(new Set(pids).size).toBe(3);
    expect(stdout).toMatch(/paused: write_workspace_file \{"path":"notes\/hello.txt"/);
    expect(stdout).toContain('nothing ran');
    // The first resuming process runs the write; the second gets its result replayed.
    const [, first, second] = stdout.split(/\[process \d+\] the human approves/);
    expect(first).toContain('"ok":true');
    expect(first).not.toContain('replayed');
    expect(second).toMatch(/"replayed":true|approval_already_used/);
    expect(stdout).toContain('notes/hello.txt: "Hello from a resumed run.\\n"');
    expect(stdout).toContain('write_workspace_file ran 1 time(s): succeeded');
    expect(stdout).toContain('example check passed');
  }, 150_000);
});
