// Sums the vitest JSON reports of every package and example and prints "N passed, N failed".
// A failing non-test check (typecheck, lint, package check, or a repository check: graph,
// duplicates, knip) counts as one failure, so the line never says "0 failed" for a red run.
//
//   node scripts/summarize-tests.mjs <pnpm test status> [<verify:release status> [<test:node-versions status>]]
//
// With the second argument, the checks of `pnpm verify:release` (its .verify-release-result.json)
// are added to the counts; a missing report, or a failed run that reports no failed check, counts
// as one failure.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..');
const exitStatus = Number(process.argv[2] ?? 0);
const releaseStatus = process.argv[3] === undefined ? undefined : Number(process.argv[3]);
const versionsStatus = process.argv[4] === undefined ? undefined : Number(process.argv[4]);
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
/** Adds the counts of a run that writes one JSON report; a missing or unexplained failure is one. */
function addReport(status, file, command) {
  if (status === undefined) return;
  const report = path.join(root, file);
  const result = existsSync(report) ? JSON.parse(readFileSync(report, 'utf8')) : undefined;
  if (!result) console.log(`no report from ${command}`);
  passed += result?.passed ?? 0;
  failed += result?.failed ?? 0;
  if (!result || (status !== 0 && result.failed === 0)) {
    if (result) console.log(`${command} exited with status ${status}`);
    failed += 1;
  }
}
addReport(releaseStatus, '.verify-release-result.json', 'pnpm verify:release');
addReport(versionsStatus, '.node-versions-result.json', 'pnpm test:node-versions');
if (versionsStatus !== undefined && existsSync(path.join(root, '.node-versions-result.json'))) {
  const { runs } = JSON.parse(readFileSync(path.join(root, '.node-versions-result.json'), 'utf8'));
  for (const [name, run] of Object.entries(runs ?? {}))
    console.log(
      `${name === 'newest' ? `newest peers on Node ${run.node}` : `Node ${run.node}`}: ${run.passed} passed, ${run.failed} failed`,
    );
}
console.log(`${passed} passed, ${failed} failed`);
process.exit(
  exitStatus !== 0 || (releaseStatus ?? 0) !== 0 || (versionsStatus ?? 0) !== 0 || failed > 0
    ? 1
    : 0,
);
