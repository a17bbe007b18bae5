// A small, dependency-free timing harness for sub-microsecond calls: each sample times a batch
// of calls and divides, so timer resolution does not dominate; the median of the samples is
// reported. Async functions are awaited one after another (what an agent loop does).
import { spawnSync } from 'node:child_process';

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

/** Wall time in milliseconds of a fresh `node` process that imports `specifier`, median of `runs`. */
export function coldImportMillis(specifier, { cwd, runs = 15 } = {}) {
  const source = specifier ? `await import(${JSON.stringify(specifier)});` : '';
  const times = [];
  for (let i = 0; i < runs; i += 1) {
    const start = process.hrtime.bigint();
    const child = spawnSync(process.execPath, ['--input-type=module', '-e', source], {
      cwd,
      stdio: 'inherit',
    });
    if (child.status !== 0) throw new Error(`importing ${specifier} failed`);
    times.push(Number(process.hrtime.bigint() - start) / 1e6);
  }
  return median(times);
}

/** Prints rows as an aligned table. */
export function printTable(title, header, rows) {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => String(r[i]).length)));
  const line = (cells) => cells.map((c, i) => String(c).padEnd(widths[i])).join('  ');
  console.log(`\n${title}\n${line(header)}\n${widths.map((w) => '-'.repeat(w)).join('  ')}`);
  for (const row of rows) console.log(line(row));
}
