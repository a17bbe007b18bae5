// Sums the vitest JSON reports of every package and example and prints "N passed, N failed".
// A failing non-test check (typecheck, lint, package check, or a repository check: graph,
// duplicates, knip) counts as one failure, so the line never says "0 failed" for a red run.
//
//   node scripts/summarize-tests.mjs <pnpm test status> [<pnpm verify:release status>]
//
// With the second argument, the checks of `pnpm verify:release` (its .verify-release-result.json)
// are added to the counts; a missing report, or a failed run that reports no failed check, counts
// as one failure.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..');
const exitStatus = Number(process.argv[2] ?? 0);
const releaseStatus = process.argv[3] === undefined ? undefined : Number(process.argv[3]);
let passed = 0;
let failed = 0;
const missing = [];
for (const group of ['packages', 'examples']) {
  const dir = path.join(root, group);
  if (!existsSync(dir)) continue;
  for (const name of readdirSync(dir)) {
    const report = path.join(dir, name, '.vitest-result.json');
    if (!existsSync(path.join(dir, name, 'package.json'))) continue;
    if (!existsSync(report)) {
      missing.push(`${group}/${name}`);
      continue;
    }
    const result = JSON.parse(readFileSync(report, 'utf8'));
    passed += result.numPassedTests ?? 0;
    const failedTests = result.numFailedTests ?? 0;
    // A file that failed to load has failed suites but no failed tests.
    failed += failedTests > 0 ? failedTests : (result.numFailedTestSuites ?? 0);
  }
}
if (missing.length > 0) console.log(`no test report from: ${missing.join(', ')}`);
if (exitStatus !== 0 && failed === 0) {
  console.log(
    `the test command exited with status ${exitStatus} (a check other than the tests failed)`,
  );
  failed = 1;
}
if (releaseStatus !== undefined) {
  const report = path.join(root, '.verify-release-result.json');
  const result = existsSync(report) ? JSON.parse(readFileSync(report, 'utf8')) : undefined;
  if (!result) console.log('no report from pnpm verify:release');
  passed += result?.passed ?? 0;
  failed += result?.failed ?? 0;
  if (!result || (releaseStatus !== 0 && result.failed === 0)) {
    if (result) console.log(`pnpm verify:release exited with status ${releaseStatus}`);
    failed += 1;
  }
}
console.log(`${passed} passed, ${failed} failed`);
process.exit(exitStatus !== 0 || (releaseStatus ?? 0) !== 0 || failed > 0 ? 1 : 0);
