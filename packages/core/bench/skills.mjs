// Skills: download + verify + extract of a 20 MB, 2,000-file skill archive (stored and deflated
// entries mixed) from a local server,
// against `curl` + `sha256sum` + `unzip` on the same file; and the Skill Runtime's overhead per
// workflow run — local_process over a bare `bash run-workflow.sh`, bubblewrap over local_process.
import { execFile, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { has, median } from './measure.mjs';

const execFileAsync = promisify(execFile);
const FILES = 2_000;
const FILE_BYTES = 10_000;
const ROUNDS = 7;
const RUNS = 30;

/** `bash <script>` as a child, awaited: the floor every workflow run pays. */
function bareBash(script, cwd) {
  return new Promise((resolve, reject) => {
    const child = spawn('bash', [script], { cwd, stdio: 'ignore' });
    child.once('error', reject);
    child.once('exit', resolve);
  });
}

/** Runs the skills benchmark with the built package; returns rows and targets. */
export async function benchSkills({ skills, sandbox, testing }) {
  const base = await mkdtemp(path.join(os.tmpdir(), 'ksadk-bench-skills-'));
  const rows = [];
  const targets = [];
  try {
    // 2,000 text files of 10 kB (base64 of random bytes: compresses ~1.3:1, like real sources),
    // every other one stored rather than deflated, as Info-ZIP, 7-Zip and Python mix them.
    const entries = [
      { name: 'big/SKILL.md', data: '---\nname: big\ndescription: A large skill.\n---\nBody.\n' },
    ];
    for (let index = 0; index < FILES; index += 1)
      entries.push({
        name: `big/references/r${String(index).padStart(4, '0')}.md`,
        data: randomBytes((FILE_BYTES * 3) / 4).toString('base64'),
        store: index % 2 === 0,
      });
    const service = await testing.startSkillServiceTestServer({
      spaces: [{ id: 'bench', skills: [{ name: 'big', archive: testing.createZip(entries) }] }],
    });
    try {
      const client = skills.createSkillServiceClient({ baseUrl: service.url });
      const [ref] = await client.listSkills('bench');
      const url = await client.downloadUrl(ref);
      const archiveMb = (service.archiveOf('big').length / 1e6).toFixed(1);
      const ksadk = [];
      const shell = [];
      const tools = has('curl') && has('unzip') && has('sha256sum');
      for (let round = 0; round < ROUNDS; round += 1) {
        const cacheDir = path.join(base, `cache-${round}`);
        const store = skills.createSkillPackageStore({ cacheDir });
        let started = performance.now();
        const loaded = await store.load(ref, async () => url);
        ksadk.push(performance.now() - started);
        if (loaded.cacheHit || !loaded.verified) throw new Error('expected a verified download');
        if (tools) {
          const out = path.join(base, `unzip-${round}`);
          await mkdir(out, { recursive: true });
          started = performance.now();
          // Asynchronous: the archive is served by this very process.
          await execFileAsync(
            'sh',
            [
              '-c',
              `curl -sf "$0" -o "$1/a.zip" && sha256sum "$1/a.zip" >/dev/null && unzip -q "$1/a.zip" -d "$1/x"`,
              url,
              out,
            ],
            { env: { PATH: process.env.PATH } },
          );
          shell.push(performance.now() - started);
        }
        await rm(cacheDir, { recursive: true, force: true });
      }
      const ours = median(ksadk);
      rows.push([
        `KsADK store: download + sha256 + checked extract (${archiveMb} MB, ${FILES + 1} files, stored and deflated)`,
        ours.toFixed(0),
        tools ? `${(ours / median(shell)).toFixed(2)}×` : 'n/a',
      ]);
      if (tools) {
        rows.push(['curl + sha256sum + unzip, same archive', median(shell).toFixed(0), '1.00×']);
        targets.push([
          `skill archive within 1.5× of curl + sha256sum + unzip (${(ours / median(shell)).toFixed(2)}×)`,
          ours / median(shell) <= 1.5,
        ]);
      }
    } finally {
      await service.close();
    }

    // Workflow overhead: the same one-line workflow, bare and through the runtime.
    const skillsDir = path.join(base, 'skills');
    const skillDir = path.join(skillsDir, 'tiny');
    await mkdir(path.join(skillDir, 'scripts'), { recursive: true });
    await writeFile(path.join(skillDir, 'SKILL.md'), '---\nname: tiny\ndescription: Tiny.\n---\n');
    const script = path.join(skillDir, 'scripts', 'run-workflow.sh');
    await writeFile(script, 'echo done > "$KSADK_SKILL_OUTPUT_DIR/out.txt"\n');
    const source = async () => skills.loadLocalSkills(skillsDir);
    const bare = [];
    const measured = { local_process: [], bubblewrap: [] };
    const runtimes = {
      local_process: skills.createSkillRuntime({
        backend: sandbox.createLocalProcessBackend(),
        skills: source,
        runsDir: path.join(base, 'runs'),
      }),
    };
    if (has('bwrap'))
      runtimes.bubblewrap = skills.createSkillRuntime({
        backend: sandbox.createBubblewrapBackend(),
        skills: source,
        runsDir: path.join(base, 'runs'),
      });
    const scratch = path.join(base, 'scratch');
    await mkdir(scratch);
    for (let run = 0; run < RUNS; run += 1) {
      let started = performance.now();
      await bareBash(script, scratch);
      bare.push(performance.now() - started);
      for (const [name, runtime] of Object.entries(runtimes)) {
        started = performance.now();
        const result = await runtime.run({
          prompt: 'go',
          skillNames: ['tiny'],
          sessionId: 'bench',
        });
        measured[name].push(performance.now() - started);
        if (!result.ok) throw new Error(`${name} run failed: ${result.error_message}`);
      }
    }
    const bareMs = median(bare);
    const localMs = median(measured.local_process);
    rows.push(['bare `bash run-workflow.sh` (spawn + exit)', bareMs.toFixed(1), '']);
    rows.push([
      'execute workflow on local_process (runtime.run)',
      localMs.toFixed(1),
      `+${(localMs - bareMs).toFixed(1)} ms`,
    ]);
    targets.push([
      `local_process adds under 30 ms per workflow (+${(localMs - bareMs).toFixed(1)} ms)`,
      localMs - bareMs < 30,
    ]);
    if (runtimes.bubblewrap) {
      const bwrapMs = median(measured.bubblewrap);
      rows.push([
        'execute workflow on bubblewrap (runtime.run)',
        bwrapMs.toFixed(1),
        `+${(bwrapMs - localMs).toFixed(1)} ms over local_process`,
      ]);
    }
  } finally {
    await rm(base, { recursive: true, force: true });
  }
  return { rows, targets };
}
