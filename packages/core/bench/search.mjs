// Workspace search on a generated 20,000-file, 80 MB tree, side by side with plain ripgrep run
// with the same candidate rules (hidden files, no ignore files, no symlinks, 1 MiB cap, binary
// skip). Interleaved (rg, KsADK rg backend, KsADK built-in, …) so machine noise hits all alike.
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { median } from './measure.mjs';

const FILES = 20_000;
const FILE_BYTES = 4_000;

/** Builds the tree: 200 folders × 100 files of ~4 kB text; the needle sits in 20 of them. */
function buildTree() {
  const root = mkdtempSync(path.join(tmpdir(), 'ksadk-search-bench-'));
  const line = 'the quick brown fox jumps over the lazy dog while the search goes on\n';
  const body = line.repeat(Math.ceil(FILE_BYTES / line.length)).slice(0, FILE_BYTES);
  for (let index = 0; index < FILES; index += 1) {
    const dir = path.join(root, `d${String(index % 200).padStart(3, '0')}`);
    if (index < 200) mkdirSync(dir, { recursive: true });
    const text = index % 1000 === 7 ? `${body}const needle_42 = true;\n` : body;
    writeFileSync(path.join(dir, `f${index}.txt`), text);
  }
  return root;
}

function plainRipgrep(root) {
  const child = spawnSync(
    'rg',
    [
      '--no-config',
      '--json',
      '--no-ignore',
      '--hidden',
      '--no-follow',
      '--crlf',
      '--max-filesize',
      String(1024 * 1024),
      '--ignore-case',
      '--fixed-strings',
      '-e',
      'needle_42',
      '--',
      '.',
    ],
    { cwd: root, maxBuffer: 64 * 1024 * 1024 },
  );
  if (child.status !== 0) throw new Error(`rg failed: ${child.stderr}`);
  return child.stdout
    .toString()
    .split('\n')
    .filter((line) => line.includes('"match"')).length;
}

/** Runs the search benchmark with the built package; returns rows and targets. */
export async function benchSearch(core, workspace) {
  const rgPresent = spawnSync('rg', ['--version']).status === 0;
  if (!rgPresent)
    return { rows: [['ripgrep not installed: search benchmark skipped', '', '']], targets: [] };
  const root = buildTree();
  try {
    const gateway = core.createToolGateway({ approvalMode: 'full', env: {} });
    const toolFor = (useRipgrep) =>
      workspace
        .createWorkspaceToolset({ root, useRipgrep })
        .tools.find((tool) => tool.name === 'search_workspace_files');
    const withRg = toolFor(true);
    const builtin = toolFor(false);
    const args = { query: 'needle_42', max_results: 1000 };
    const time = async (fn) => {
      const start = process.hrtime.bigint();
      const value = await fn();
      return [Number(process.hrtime.bigint() - start) / 1e6, value];
    };
    // Warm the file cache and both backends.
    plainRipgrep(root);
    await gateway.invoke(withRg, args);
    await gateway.invoke(builtin, args);
    const samples = { rg: [], ksadkRg: [], ksadkBuiltin: [] };
    let counts;
    for (let round = 0; round < 7; round += 1) {
      const [a, plainCount] = await time(async () => plainRipgrep(root));
      const [b, viaRg] = await time(() => gateway.invoke(withRg, args));
      const [c, viaBuiltin] = await time(() => gateway.invoke(builtin, args));
      samples.rg.push(a);
      samples.ksadkRg.push(b);
      samples.ksadkBuiltin.push(c);
      counts = [plainCount, viaRg.match_count, viaBuiltin.match_count, viaRg.search_backend];
    }
    const [rg, viaRg, viaBuiltin] = [samples.rg, samples.ksadkRg, samples.ksadkBuiltin].map(median);
    const rows = [
      ['plain rg (same rules)', rg.toFixed(1), '1.0×'],
      [
        `search_workspace_files, rg backend (${counts[3]})`,
        viaRg.toFixed(1),
        `${(viaRg / rg).toFixed(2)}×`,
      ],
      [
        'search_workspace_files, built-in',
        viaBuiltin.toFixed(1),
        `${(viaBuiltin / rg).toFixed(2)}×`,
      ],
    ];
    const targets = [
      [
        `all three find the same ${counts[0]} matches`,
        counts[0] === counts[1] && counts[1] === counts[2],
      ],
      [`rg backend within 1.5× of plain rg (${(viaRg / rg).toFixed(2)}×)`, viaRg / rg <= 1.5],
      [`built-in within 4× of plain rg (${(viaBuiltin / rg).toFixed(2)}×)`, viaBuiltin / rg <= 4],
    ];
    return { rows, targets };
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}
