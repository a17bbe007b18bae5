// pnpm bench (in packages/cli): how long `ksadk --help` takes from a cold start (a fresh `node`
// process each time), against Node starting and doing nothing, and `ksadk tools` for the focused
// built-ins (core and the schema pipeline loaded). Target: --help under 300 ms.
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { median, printTable } from '../../core/bench/measure.mjs';

const bin = fileURLToPath(new URL('../bin/ksadk.mjs', import.meta.url));
const ROUNDS = 15;

/** Milliseconds of one run of `node <args>`. */
function once(args) {
  const started = process.hrtime.bigint();
  const child = spawnSync(process.execPath, args, {
    stdio: 'ignore',
    env: { PATH: process.env.PATH },
  });
  if (child.status !== 0 && child.status !== null)
    throw new Error(`node ${args.join(' ')} exited ${child.status}`);
  return Number(process.hrtime.bigint() - started) / 1e6;
}

const sides = {
  node: ['-e', ''],
  help: [bin, '--help'],
  tools: [bin, 'tools', '--framework', 'openai', '--json'],
};
const times = { node: [], help: [], tools: [] };
for (let round = 0; round < ROUNDS; round += 1)
  for (const [name, args] of Object.entries(sides)) times[name].push(once(args));

const [node, help, tools] = ['node', 'help', 'tools'].map((name) => median(times[name]));
printTable(
  `ksadk from a cold start, median ms of ${ROUNDS} fresh processes`,
  ['command', 'ms'],
  [
    ['node -e "" (Node itself)', node.toFixed(0)],
    ['ksadk --help', help.toFixed(0)],
    ['ksadk tools --framework openai --json (focused built-ins)', tools.toFixed(0)],
  ],
);
const target = `ksadk --help under 300 ms (${help.toFixed(0)} ms)`;
printTable('Targets', ['target', 'met'], [[target, help < 300 ? 'yes' : 'NO']]);
if (help >= 300) {
  console.error(`TARGETS MISSED (1 of 1):\n  ✗ ${target}`);
  process.exitCode = 1;
}
