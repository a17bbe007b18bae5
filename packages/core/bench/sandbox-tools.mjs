// Sandbox tools: `run_command` through the gateway (screen, session registry, env filter, output
// budget) against a bare `child_process.spawn` of the same `sh -c` command — local_process must
// add under 5 ms; bubblewrap is reported (namespaces cost a few ms more).
import { spawn } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { has, median } from './measure.mjs';

const RUNS = 40;
const COMMAND = 'cat note.txt > /dev/null; echo done';

/** `sh -c <command>` as a child with its output collected, awaited: what a user would write. */
function bareSpawn(cwd) {
  return new Promise((resolve, reject) => {
    const child = spawn('sh', ['-c', COMMAND], { cwd, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (chunk) => {
      out += chunk;
    });
    child.stderr.resume();
    child.once('error', reject);
    child.once('close', () => resolve(out));
  });
}

/** Runs the sandbox-tools benchmark with the built package; returns rows and targets. */
export async function benchSandboxTools({ core, sandbox }) {
  const rows = [];
  const targets = [];
  const base = await mkdtemp(path.join(os.tmpdir(), 'ksadk-bench-sandbox-'));
  const gateway = core.createToolGateway({ env: {}, approvalMode: 'full' });
  const context = { accountId: 'bench', sessionId: 'bench' };
  try {
    await writeFile(path.join(base, 'note.txt'), 'hello\n');
    const backends = ['local_process', ...(has('bwrap') ? ['bubblewrap'] : [])];
    const toolsets = Object.fromEntries(
      backends.map((backend) => [
        backend,
        sandbox.createSandboxToolset({
          backend,
          workspace: base,
          env: { PATH: process.env.PATH },
        }),
      ]),
    );
    const run = (backend) =>
      core.runWithInvocationContext(context, () =>
        gateway.invoke(
          toolsets[backend].tools.find((tool) => tool.name === 'run_command'),
          { command: COMMAND },
        ),
      );
    // Warm up: the session is created once per key and then reused.
    for (const backend of backends) {
      const warm = await run(backend);
      if (!warm.ok || warm.exit_code !== 0) throw new Error(`${backend}: ${JSON.stringify(warm)}`);
    }
    await bareSpawn(base);
    const bare = [];
    const measured = Object.fromEntries(backends.map((backend) => [backend, []]));
    for (let i = 0; i < RUNS; i += 1) {
      let started = performance.now();
      await bareSpawn(base);
      bare.push(performance.now() - started);
      for (const backend of backends) {
        started = performance.now();
        await run(backend);
        measured[backend].push(performance.now() - started);
      }
    }
    const bareMs = median(bare);
    const localMs = median(measured.local_process);
    rows.push(['bare child_process.spawn("sh", ["-c", …])', bareMs.toFixed(2), '']);
    rows.push([
      'run_command on local_process (gateway.invoke)',
      localMs.toFixed(2),
      `+${(localMs - bareMs).toFixed(2)} ms`,
    ]);
    targets.push([
      `run_command on local_process adds under 5 ms (+${(localMs - bareMs).toFixed(2)} ms)`,
      localMs - bareMs < 5,
    ]);
    if (measured.bubblewrap) {
      const bwrapMs = median(measured.bubblewrap);
      rows.push([
        'run_command on bubblewrap (gateway.invoke)',
        bwrapMs.toFixed(2),
        `+${(bwrapMs - bareMs).toFixed(2)} ms`,
      ]);
    }
    await Promise.all(Object.values(toolsets).map((set) => set.close()));
  } finally {
    await rm(base, { recursive: true, force: true });
  }
  return { rows, targets };
}
