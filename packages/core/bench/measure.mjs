// A small, dependency-free timing harness for sub-microsecond calls: each sample times a batch
// of calls and divides, so timer resolution does not dominate; the median of the samples is
// reported. Async functions are awaited one after another (what an agent loop does).
import { execFileSync, spawnSync } from 'node:child_process';

/** Whether a program is on PATH. */
export function has(program) {
  try {
    execFileSync('sh', ['-c', `command -v ${program}`], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

/** Median of numbers. */
export function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

/** Per-call time in microseconds: median over `samples` batches of `batch` calls. */
export async function perCallMicros(fn, { batch = 2000, samples = 60, warmup = 20_000 } = {}) {
  for (let i = 0; i < warmup; i += 1) await fn();
  const results = [];
  for (let s = 0; s < samples; s += 1) {
    const start = process.hrtime.bigint();
    for (let i = 0; i < batch; i += 1) await fn();
    results.push(Number(process.hrtime.bigint() - start) / 1000 / batch);
  }
  return median(results);
}

/** The `q`-quantile (0–1) of numbers, by linear interpolation. */
export function quantile(values, q) {
  const sorted = [...values].sort((a, b) => a - b);
  const at = (sorted.length - 1) * q;
  const low = Math.floor(at);
  const high = Math.ceil(at);
  return sorted[low] + (sorted[high] - sorted[low]) * (at - low);
}

/**
 * Wall time in milliseconds of one fresh `node` process that imports `specifier` ('' = nothing;
 * `code:<module source>` runs that source instead, to time an import and a first call).
 */
function coldImportOnce(specifier, cwd) {
  const source = specifier.startsWith('code:')
    ? specifier.slice('code:'.length)
    : specifier
      ? `await import(${JSON.stringify(specifier)});`
      : '';
  const start = process.hrtime.bigint();
  const child = spawnSync(process.execPath, ['--input-type=module', '-e', source], {
    cwd,
    stdio: 'inherit',
  });
  if (child.status !== 0) throw new Error(`importing ${specifier} failed`);
  return Number(process.hrtime.bigint() - start) / 1e6;
}

/** Median wall time in milliseconds of `runs` fresh processes importing `specifier`. */
export function coldImportMillis(specifier, { cwd, runs = 15 } = {}) {
  return median(Array.from({ length: runs }, () => coldImportOnce(specifier, cwd)));
}

/**
 * Cold-import times measured **interleaved**: each round imports every specifier once, in order
 * (A B C A B C …), so machine noise hits all of them alike. Returns, per specifier, the time of
 * each round (index-aligned, for paired differences).
 */
export function coldImportRounds(specifiers, { cwd, rounds = 21 } = {}) {
  const times = specifiers.map(() => []);
  for (let round = 0; round < rounds; round += 1) {
    for (const [index, specifier] of specifiers.entries()) {
      times[index].push(coldImportOnce(specifier, cwd));
    }
  }
  return times;
}

/**
 * Compares paired samples: the median of `a[i] - b[i]` and its interquartile range. A limit is
 * `met` when the median difference is within it, `missed` only when even the lower quartile is
 * over it, and `noise` in between (the spread cannot tell).
 */
export function pairedVerdict(a, b, limit) {
  const differences = a.map((value, index) => value - b[index]);
  const mid = median(differences);
  const low = quantile(differences, 0.25);
  const high = quantile(differences, 0.75);
  const verdict = mid <= limit ? 'met' : low > limit ? 'missed' : 'noise';
  return { median: mid, low, high, verdict };
}

/** Prints rows as an aligned table. */
export function printTable(title, header, rows) {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => String(r[i]).length)));
  const line = (cells) => cells.map((c, i) => String(c).padEnd(widths[i])).join('  ');
  console.log(`\n${title}\n${line(header)}\n${widths.map((w) => '-'.repeat(w)).join('  ')}`);
  for (const row of rows) console.log(line(row));
}

/** The variable that tells a bench process started by {@link compareTurns} which side to time. */
const SIDE = 'KSADK_BENCH_SIDE';

/**
 * An adapter's turn against the framework's own tool path. Each side is timed in processes of its
 * own — the bench script started again, `rounds` times per side, the sides alternating — so
 * neither shares the JIT's type feedback or the heap with the other; the ratio is the median of the
 * per-round ratios. In such a process (`KSADK_BENCH_SIDE` set) it times that side, reports, and
 * exits. Prints the table and the target "within 1× (±5% noise)", and sets a failing exit code
 * when it is missed.
 */
export async function compareTurns({ title, native, ours, rounds = 9, opts }) {
  const side = process.env[SIDE];
  if (side === 'native' || side === 'ours') {
    const micros = await perCallMicros(side === 'native' ? native.turn : ours.turn, opts);
    process.stdout.write(`${JSON.stringify({ micros })}\n`);
    process.exit(0);
  }
  const timeIn = (which) => {
    const child = spawnSync(process.execPath, [...process.execArgv, process.argv[1]], {
      env: { ...process.env, [SIDE]: which },
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    const line = child.stdout.trim().split('\n').at(-1) ?? '';
    if (child.status !== 0 || !line.startsWith('{')) throw new Error(`the ${which} run failed`);
    return JSON.parse(line).micros;
  };
  const times = { native: [], ours: [] };
  const ratios = [];
  for (let round = 0; round < rounds; round += 1) {
    const order = round % 2 === 0 ? ['native', 'ours'] : ['ours', 'native'];
    const got = {};
    for (const which of order) got[which] = timeIn(which);
    times.native.push(got.native);
    times.ours.push(got.ours);
    ratios.push(got.ours / got.native);
  }
  const ratio = median(ratios);
  printTable(
    `${title}; median of ${rounds} rounds, each side in its own process`,
    ['path', 'µs/turn', 'ratio'],
    [
      [native.label, median(times.native).toFixed(1), '1.00×'],
      [ours.label, median(times.ours).toFixed(1), `${ratio.toFixed(2)}×`],
    ],
  );
  const target = `a turn within 1× of the SDK's own tool path, ±5% noise (${ratio.toFixed(2)}×)`;
  printTable('Targets', ['target', 'met'], [[target, ratio <= 1.05 ? 'yes' : 'NO']]);
  if (ratio > 1.05) {
    console.error(`TARGETS MISSED (1 of 1):\n  ✗ ${target}`);
    process.exitCode = 1;
  }
  return ratio;
}
