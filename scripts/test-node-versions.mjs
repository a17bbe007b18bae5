// Runs the unit tests of the packages and the tests of the framework examples on other Node
// versions than the one running this script (CI: Node 22 and Node 24, next to the main run on
// Node 20, the engines floor). Core and the store packages — most of the time — run on the last
// Node given only: between the floor and the newest line they have no Node-specific path.
//
//   node scripts/test-node-versions.mjs 22 24 [--newest]
//
// Each Node comes from the `node` npm package (a binary from the npm registry, no download step),
// pinned below and installed once into ~/.ksadk-ci-tools/node-<version>. Tests run with that
// Node first on PATH, through each folder's own vitest, and write .vitest-result.node<major>.json
// next to the main run's report; the summary is written to .node-versions-result.json for
// scripts/summarize-tests.mjs. Exits non-zero when anything failed.
import { spawn } from 'node:child_process';
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { installNewestPeers, installNode, NEWEST_PEERS, NODE_RELEASES } from './node-releases.mjs';

/** What runs on each Node given: the adapters' and the MCP server's unit tests and the framework examples. */
const FOLDERS = [
  'packages/langgraph',
  'packages/adk',
  'packages/openai',
  'packages/ai-sdk',
  'packages/anthropic',
  'packages/openai-agents',
  'packages/mcp-server',
  'examples/openai-function-calling',
  'examples/langgraph-agent',
  'examples/adk-agent',
  'examples/ai-sdk-chat',
  'examples/anthropic-tool-loop',
  'examples/openai-agents-run-state',
];

/** What runs on the last Node given only (the newest line; the main run covers the floor). */
const LAST_NODE_FOLDERS = [
  'packages/core',
  'packages/redis',
  'packages/postgres',
  'packages/console',
  'packages/cli',
];

const NEWEST_FOLDERS = ['packages/openai', 'packages/ai-sdk', 'packages/openai-agents'];

const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..');
const newest = process.argv.includes('--newest');
const majors = process.argv.slice(2).filter((arg) => arg !== '--newest');
if (majors.length === 0 || majors.some((major) => !NODE_RELEASES[major])) {
  console.error(
    `usage: node scripts/test-node-versions.mjs <${Object.keys(NODE_RELEASES).join('|')}>…`,
  );
  process.exit(2);
}

/** Runs one folder's tests on that Node; resolves with its counts. */
function runFolder(folder, major, bin, label = `node${major}`, extraEnv = {}) {
  const cwd = path.join(root, folder);
  const report = path.join(cwd, `.vitest-result.${label}.json`);
  rmSync(report, { force: true });
  const vitest = path.join(root, 'node_modules', 'vitest', 'vitest.mjs');
  return new Promise((resolve) => {
    const child = spawn(
      path.join(bin, 'node'),
      [vitest, 'run', '--reporter=dot', '--reporter=json', `--outputFile=${report}`],
      {
        cwd,
        env: {
          ...process.env,
          ...extraEnv,
          PATH: `${bin}${path.delimiter}${process.env.PATH ?? ''}`,
        },
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    let output = '';
    const keep = (chunk) => {
      output = (output + chunk).slice(-20_000);
    };
    child.stdout.on('data', keep);
    child.stderr.on('data', keep);
    child.on('close', (status) => {
      let passed = 0;
      let failed = 0;
      if (existsSync(report)) {
        const result = JSON.parse(readFileSync(report, 'utf8'));
        passed = result.numPassedTests ?? 0;
        const failedTests = result.numFailedTests ?? 0;
        failed = failedTests > 0 ? failedTests : (result.numFailedTestSuites ?? 0);
      }
      // A run that failed without a failing test (it did not start, a hook threw) still counts.
      if (status !== 0 && failed === 0) failed = 1;
      if (failed > 0) console.log(output);
      resolve({ passed, failed });
    });
  });
}

const totals = { passed: 0, failed: 0, runs: {} };
for (const major of majors) {
  const started = Date.now();
  let bin;
  try {
    bin = installNode(major);
  } catch (error) {
    console.log(`Node ${major}: ${error.message}`);
    totals.failed += 1;
    totals.runs[major] = { passed: 0, failed: 1 };
    continue;
  }
  const run = { passed: 0, failed: 0 };
  const folders = major === majors.at(-1) ? [...LAST_NODE_FOLDERS, ...FOLDERS] : FOLDERS;
  for (const folder of folders) {
    const { passed, failed } = await runFolder(folder, major, bin);
    run.passed += passed;
    run.failed += failed;
    console.log(`node ${NODE_RELEASES[major]} ${folder}: ${passed} passed, ${failed} failed`);
  }
  const seconds = Math.round((Date.now() - started) / 1000);
  console.log(
    `Node ${NODE_RELEASES[major]}: ${run.passed} passed, ${run.failed} failed (${seconds} s)`,
  );
  totals.passed += run.passed;
  totals.failed += run.failed;
  totals.runs[major] = { ...run, node: NODE_RELEASES[major], seconds };
}
if (newest) {
  const major = majors.at(-1);
  const run = { passed: 0, failed: 0 };
  const started = Date.now();
  try {
    const peers = installNewestPeers();
    const bin = installNode(major);
    for (const folder of NEWEST_FOLDERS) {
      const { passed, failed } = await runFolder(folder, major, bin, 'newest', {
        KSADK_TEST_PEERS_DIR: peers,
      });
      run.passed += passed;
      run.failed += failed;
    }
  } catch (error) {
    console.log(`newest peers: ${error.message}`);
    run.failed += 1;
  }
  const versions = Object.entries(NEWEST_PEERS).map(([name, version]) => `${name} ${version}`);
  const seconds = Math.round((Date.now() - started) / 1000);
  console.log(
    `newest peers (${versions.join(', ')}) on Node ${NODE_RELEASES[major]}: ${run.passed} passed, ${run.failed} failed (${seconds} s)`,
  );
  totals.passed += run.passed;
  totals.failed += run.failed;
  totals.runs.newest = { ...run, peers: NEWEST_PEERS, node: NODE_RELEASES[major], seconds };
}
writeFileSync(
  path.join(root, '.node-versions-result.json'),
  `${JSON.stringify(totals, null, 2)}\n`,
);
process.exit(totals.failed > 0 ? 1 : 0);
