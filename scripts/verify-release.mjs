// pnpm verify:release — a release rehearsal against a throwaway local registry (docs/releasing.md).
//
// 1. starts Verdaccio on 127.0.0.1 (a free port, storage in a temp dir; @ksadk/* is published
//    there, everything else is proxied to the registry `npm config get registry` names);
// 2. copies the repository (tracked and untracked-but-not-ignored files, as in the working tree)
//    to a temp dir, installs and builds it there, adds a patch changeset for every public
//    package, runs `changeset version` and publishes with `pnpm publish -r`;
// 3. fetches every published tarball back and checks its contents, its size budget, publint and
//    attw;
// 4. installs each framework package alone with npm, exactly as the README's install line says,
//    then type-checks and runs that framework's example against what was installed;
// 5. stops the registry and removes every temp dir, whatever happens.
//
// One check = one line in the report; the run ends with "verify:release: N passed, N failed",
// writes the counts to .verify-release-result.json (read by scripts/summarize-tests.mjs) and
// exits non-zero if anything failed. The real repository is never written to, except that
// result file and turbo's local cache (.turbo/cache, shared so an unchanged build is a cache hit).
import { spawn } from 'node:child_process';
import {
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { builtinModules, createRequire } from 'node:module';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { installNode, NEWEST_PEERS, NODE_RELEASES } from './node-releases.mjs';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const RESULT_FILE = path.join(ROOT, '.verify-release-result.json');
const BIN = path.join(ROOT, 'node_modules', '.bin');

/**
 * What a user installs, per framework package. `example`: the example under examples/ that is
 * type-checked and run against the installed packages; `smoke`: for the store packages, a script
 * that imports the package and constructs its stores without a server.
 */
const TARGETS = [
  { name: '@ksadk/langgraph', example: 'langgraph-agent' },
  { name: '@ksadk/adk', example: 'adk-agent' },
  { name: '@ksadk/openai', example: 'openai-function-calling' },
  // The newest major of the peer range, which the pinned devDependency is not (openai 7 needs
  // Node 22): the same README line and example, on the pinned Node 22.
  {
    name: '@ksadk/openai',
    example: 'openai-function-calling',
    label: 'openai-newest',
    peers: { openai: NEWEST_PEERS.openai },
    node: '22',
  },
  { name: '@ksadk/ai-sdk', example: 'ai-sdk-chat' },
  // AI SDK 7 (needs Node 22), the newest major of the peer range; the pinned devDependency is 6.
  {
    name: '@ksadk/ai-sdk',
    example: 'ai-sdk-chat',
    label: 'ai-sdk-newest',
    peers: { ai: NEWEST_PEERS.ai },
    node: '22',
  },
  { name: '@ksadk/anthropic', example: 'anthropic-tool-loop' },
  { name: '@ksadk/openai-agents', example: 'openai-agents-run-state' },
  // @openai/agents 0.15 and later need openai 7 and so Node 22: the newest release of the range.
  {
    name: '@ksadk/openai-agents',
    example: 'openai-agents-run-state',
    label: 'openai-agents-newest',
    peers: { '@openai/agents': NEWEST_PEERS['@openai/agents'] },
    node: '22',
  },
  {
    name: '@ksadk/mcp-server',
    // The installed `ksadk-mcp` command over stdio, driven by the MCP SDK client it depends on.
    smoke: `import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
const dir = mkdtempSync(path.join(tmpdir(), 'ksadk-mcp-smoke-'));
writeFileSync(path.join(dir, 'hello.md'), 'hello from the installed package\\n');
const client = new Client({ name: 'smoke', version: '1.0.0' });
await client.connect(
  new StdioClientTransport({
    command: path.resolve('node_modules/.bin/ksadk-mcp'),
    args: ['--workspace', dir, '--read-only'],
    stderr: 'inherit',
  }),
);
const result = await client.callTool({ name: 'read_workspace_file', arguments: { path: 'hello.md' } });
if (!JSON.stringify(result.structuredContent).includes('hello from the installed package'))
  throw new Error(\`ksadk-mcp answered \${JSON.stringify(result).slice(0, 300)}\`);
await client.close();
console.log('smoke check passed');
`,
  },
  {
    name: '@ksadk/console',
    // The installed package serves its page and browser app (shipped in dist/app), and the
    // installed `ksadk-console` command answers --help.
    smoke: `import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { createToolGateway, defineTool } from '@ksadk/core';
import { serveKsadkConsole } from '@ksadk/console';
import { z } from 'zod';
const gateway = createToolGateway({ env: {} });
const write = defineTool({
  name: 'write_note',
  description: 'Writes a note.',
  input: z.object({ text: z.string() }),
  policy: { riskLevel: 'high', sideEffects: ['notes_write'] },
  execute: () => ({ ok: true }),
});
const asked = await gateway.invoke(write, { text: 'hello' });
if (asked.type !== 'approval_required') throw new Error('the write did not ask');
const served = await serveKsadkConsole({ gateway, tools: [write] });
const base = served.url.split('?')[0];
const headers = { authorization: \`Bearer \${served.token}\` };
const page = await fetch(base, { headers });
if (!(await page.text()).includes('app/console.js')) throw new Error('no page');
const app = await fetch(\`\${base}app/console.js\`);
if (app.status !== 200 || (await app.text()).length < 1000) throw new Error('no browser app');
const inbox = await (await fetch(\`\${base}api/approvals\`, { headers })).json();
if (inbox.items.length !== 1) throw new Error(\`inbox: \${JSON.stringify(inbox)}\`);
await served.close();
const help = execFileSync(path.resolve('node_modules/.bin/ksadk-console'), ['--help'], { encoding: 'utf8' });
if (!help.includes('ksadk-console')) throw new Error('no --help');
console.log('smoke check passed');
`,
  },
  {
    name: '@ksadk/cli',
    // The installed `ksadk` command: its help, and the tools a loader gives, as OpenAI sees them.
    smoke: `import { execFileSync } from 'node:child_process';
import path from 'node:path';
const ksadk = path.resolve('node_modules/.bin/ksadk');
if (!execFileSync(ksadk, ['--help'], { encoding: 'utf8' }).includes('ksadk tools'))
  throw new Error('no --help');
const report = JSON.parse(
  execFileSync(ksadk, ['tools', '--framework', 'openai', '--json'], { encoding: 'utf8' }),
);
if (!report.tools.some((tool) => tool.name === 'read_workspace_file' && tool.schemas.openai.ok))
  throw new Error(\`tools: \${JSON.stringify(report).slice(0, 300)}\`);
console.log('smoke check passed');
`,
  },
  {
    name: '@ksadk/redis',
    smoke: `import { createToolGateway } from '@ksadk/core';
import { createRedisApprovalStore, createRedisMemoryBackend } from '@ksadk/redis';
import { Redis } from 'ioredis';
const client = new Redis({ lazyConnect: true });
const approvalStore = createRedisApprovalStore({ client });
createRedisMemoryBackend({ client });
if (approvalStore.shared !== true) throw new Error('the Redis approval store is not shared');
createToolGateway({ approvalStore, approvalSecret: 'verify-release-secret-0123456789' });
await approvalStore.close();
client.disconnect();
console.log('smoke check passed');
`,
  },
  {
    name: '@ksadk/postgres',
    smoke: `import { createToolGateway } from '@ksadk/core';
import { createPostgresApprovalStore, createPostgresMemoryBackend } from '@ksadk/postgres';
import pg from 'pg';
const pool = new pg.Pool({ connectionString: 'postgres://127.0.0.1:1/none' });
const approvalStore = createPostgresApprovalStore({ pool });
createPostgresMemoryBackend({ pool });
if (approvalStore.shared !== true) throw new Error('the PostgreSQL approval store is not shared');
createToolGateway({ approvalStore, approvalSecret: 'verify-release-secret-0123456789' });
await approvalStore.close();
await pool.end();
console.log('smoke check passed');
`,
  },
];

/**
 * The top-level files every tarball must hold; besides them only `dist/**` (and `bin/**` for a
 * package declaring `bin`). pnpm packs the repository's LICENSE; `changeset version` writes
 * CHANGELOG.md.
 */
const TOP_LEVEL_FILES = ['package.json', 'README.md', 'LICENSE', 'CHANGELOG.md'];
/** Test code that must not ship (the `./testing` entry is public API and allowed). */
const TEST_FILE =
  /(^|\/)(__tests__|__fixtures__|__mocks__)\/|\.(test|spec|test-d|bench)\.[cm]?[jt]sx?$/;

const checks = [];
const children = new Set();
const tempDirs = [];
let registryProcess;

// ---------------------------------------------------------------------------------------------
// Running things

function seconds(since) {
  return `${((performance.now() - since) / 1000).toFixed(1)} s`;
}

function log(line = '') {
  process.stdout.write(`${line}\n`);
}

/**
 * Runs a command without a shell. Each child gets its own process group (detached) so the exit
 * handler can stop it and everything it started (pnpm → turbo → tsup, npm → node-gyp, …).
 */
function run(command, args, { cwd = ROOT, env = process.env, timeoutMs = 300_000 } = {}) {
  return new Promise((resolve) => {
    const child = spawn(command, args, {
      cwd,
      env,
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    children.add(child);
    let stdout = '';
    let stderr = '';
    let timedOut = false;
    child.stdout.on('data', (chunk) => {
      stdout += chunk;
    });
    child.stderr.on('data', (chunk) => {
      stderr += chunk;
    });
    const timer = setTimeout(() => {
      timedOut = true;
      killGroup(child, 'SIGKILL');
    }, timeoutMs);
    const finish = (code, error) => {
      clearTimeout(timer);
      children.delete(child);
      const ok = code === 0 && !timedOut && !error;
      const status = timedOut ? `timed out after ${timeoutMs / 1000} s` : `exit code ${code}`;
      resolve({ ok, code, stdout, stderr: error ? `${stderr}${error.message}` : stderr, status });
    };
    child.on('error', (error) => finish(-1, error));
    child.on('close', (code) => finish(code));
  });
}

/** Like run(), but a failure throws with the command and the end of its output. */
async function mustRun(command, args, options) {
  const result = await run(command, args, options);
  if (!result.ok) {
    const output = `${result.stdout}\n${result.stderr}`.trim().split('\n').slice(-25).join('\n');
    throw new Error(`${path.basename(command)} ${args.join(' ')}: ${result.status}\n${output}`);
  }
  return result;
}

function killGroup(child, signal) {
  try {
    process.kill(-child.pid, signal);
  } catch {
    // already gone
  }
}

/** Runs fn over items, at most `limit` at a time (npm installs are network-bound, attw is not). */
async function inPool(items, limit, fn) {
  let next = 0;
  const worker = async () => {
    while (next < items.length) await fn(items[next++]);
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
}

// ---------------------------------------------------------------------------------------------
// Reporting

/** One check, one line: ✓/✗, its name, its duration; a failure adds its reason. */
async function check(name, fn) {
  const started = performance.now();
  try {
    const note = await fn();
    checks.push({ name, ok: true });
    log(`  ✓ ${name}${note ? ` — ${note}` : ''} (${seconds(started)})`);
    return true;
  } catch (error) {
    checks.push({ name, ok: false });
    const reason = String(error?.message ?? error).replace(/\n/g, '\n      ');
    log(`  ✗ ${name} (${seconds(started)})\n      ${reason}`);
    return false;
  }
}

/** A step of setup the later checks need: when it fails, the run stops (as one failed check). */
class Abort extends Error {}
async function setup(name, fn) {
  if (!(await check(name, fn))) throw new Abort(name);
}

async function step(title, fn) {
  log(`\n▸ ${title}`);
  const started = performance.now();
  try {
    return await fn();
  } finally {
    log(`  (${title}: ${seconds(started)})`);
  }
}

function assert(condition, message) {
  if (!condition) throw new Error(message);
}

// ---------------------------------------------------------------------------------------------
// Temp dirs, the registry and cleanup

function makeTempDir(prefix) {
  const dir = mkdtempSync(path.join(tmpdir(), prefix));
  tempDirs.push(dir);
  return dir;
}

/** Synchronous, so it also runs from process.on('exit'): stop every child, remove temp dirs. */
function cleanUpNow() {
  if (registryProcess) killGroup(registryProcess, 'SIGKILL');
  for (const child of children) killGroup(child, 'SIGKILL');
  for (const dir of tempDirs.splice(0)) rmSync(dir, { recursive: true, force: true });
}

async function stopRegistry() {
  const child = registryProcess;
  if (!child || child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  killGroup(child, 'SIGTERM');
  const timeout = new Promise((resolve) => setTimeout(resolve, 5000, 'timeout'));
  if ((await Promise.race([exited, timeout])) === 'timeout') killGroup(child, 'SIGKILL');
  registryProcess = undefined;
}

function freePort() {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

/**
 * Starts Verdaccio: @ksadk/* is served from its own (empty, throwaway) storage and may be
 * published anonymously; every other package is read through from the uplink, which is whatever
 * registry npm is configured with here (never written in the repository).
 */
async function startRegistry(dir) {
  const uplink = (await mustRun('npm', ['config', 'get', 'registry'])).stdout.trim();
  assert(/^https?:\/\//.test(uplink), `npm config get registry said "${uplink}"`);
  const port = await freePort();
  const config = path.join(dir, 'config.yaml');
  writeFileSync(
    config,
    [
      `storage: ${JSON.stringify(path.join(dir, 'storage'))}`,
      'web:',
      '  enable: false',
      'auth:',
      '  htpasswd:',
      `    file: ${JSON.stringify(path.join(dir, 'htpasswd'))}`,
      '    max_users: -1',
      'uplinks:',
      '  upstream:',
      `    url: ${JSON.stringify(uplink)}`,
      '    timeout: 60s',
      '    max_fails: 10',
      '    maxage: 30m', // one fetch of each package document per run, not one per install
      'packages:',
      "  '@ksadk/*':",
      '    access: $all',
      '    publish: $all',
      "  '**':",
      '    access: $all',
      '    publish: no-one',
      '    proxy: upstream',
      'max_body_size: 100mb',
      'log: { type: stdout, format: pretty, level: warn }',
      '',
    ].join('\n'),
  );
  const require = createRequire(path.join(ROOT, 'package.json'));
  const verdaccio = path.join(path.dirname(require.resolve('verdaccio/package.json')), 'bin');
  const logFile = path.join(dir, 'verdaccio.log');
  let output = '';
  registryProcess = spawn(
    process.execPath,
    [path.join(verdaccio, 'verdaccio'), '--config', config, '--listen', `127.0.0.1:${port}`],
    { cwd: dir, detached: true, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  const keep = (chunk) => {
    output = `${output}${chunk}`.slice(-4000);
  };
  registryProcess.stdout.on('data', keep);
  registryProcess.stderr.on('data', keep);
  const url = `http://127.0.0.1:${port}/`;
  const deadline = Date.now() + 30_000;
  while (Date.now() < deadline) {
    if (registryProcess.exitCode !== null) break;
    try {
      if ((await fetch(`${url}-/ping`)).ok) return { url, uplink, logFile };
    } catch {
      // not listening yet
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  throw new Error(`Verdaccio did not answer on ${url}\n${output}`);
}

// ---------------------------------------------------------------------------------------------
// The repository: install lines, public packages, pinned versions

function readJson(file) {
  return JSON.parse(readFileSync(file, 'utf8'));
}

function publicPackages(root) {
  return readdirSync(path.join(root, 'packages'))
    .map((dir) => path.join(root, 'packages', dir))
    .filter((dir) => existsSync(path.join(dir, 'package.json')))
    .map((dir) => ({ dir, manifest: readJson(path.join(dir, 'package.json')) }))
    .filter(({ manifest }) => manifest.private !== true);
}

/** The README's install line of each package, from the table under "## Packages". */
function readmeInstallLines() {
  const lines = new Map();
  for (const row of readFileSync(path.join(ROOT, 'README.md'), 'utf8').split('\n')) {
    const match = /^\|\s*\[`(@ksadk\/[\w-]+)`\].*`(npm i [^`]+)`\s*\|\s*$/.exec(row);
    if (match) lines.set(match[1], match[2].trim().replace(/\s+/g, ' '));
  }
  return lines;
}

/** Every other `npm i @ksadk/…` line in docs/ and the package READMEs must say the same. */
function installLineDisagreements(lines) {
  const files = [
    ...readdirSync(path.join(ROOT, 'docs')).map((file) => path.join('docs', file)),
    ...readdirSync(path.join(ROOT, 'packages')).map((dir) =>
      path.join('packages', dir, 'README.md'),
    ),
  ].filter((file) => file.endsWith('.md') && existsSync(path.join(ROOT, file)));
  const problems = [];
  for (const file of files) {
    const text = readFileSync(path.join(ROOT, file), 'utf8');
    for (const match of text.matchAll(/npm i (@ksadk\/[\w-]+)[^`\n]*/g)) {
      const line = match[0].trim().replace(/\s+/g, ' ');
      const expected = lines.get(match[1]);
      if (line !== expected) problems.push(`${file}: "${line}" (README.md: "${expected}")`);
    }
  }
  return problems;
}

/**
 * The exact version to install of a third-party package: what the example pins, else what the
 * package itself is tested with (its devDependencies), else the root's devDependencies.
 */
function pinnedVersion(name, sources) {
  for (const manifest of sources) {
    const version = manifest.dependencies?.[name] ?? manifest.devDependencies?.[name];
    if (version) {
      assert(/^\d+\.\d+\.\d+$/.test(version), `${name} is "${version}", not an exact version`);
      return version;
    }
  }
  throw new Error(`no pinned version of ${name} in the example or the package`);
}

// ---------------------------------------------------------------------------------------------
// Steps

/** The working tree as git sees it (tracked + untracked, minus ignored), copied to `dir`. */
async function copyRepository(dir) {
  const listed = await mustRun('git', [
    'ls-files',
    '-z',
    '--cached',
    '--others',
    '--exclude-standard',
  ]);
  let count = 0;
  for (const file of new Set(listed.stdout.split('\0').filter(Boolean))) {
    const from = path.join(ROOT, file);
    if (!existsSync(from)) continue; // deleted in the working tree
    mkdirSync(path.dirname(path.join(dir, file)), { recursive: true });
    cpSync(from, path.join(dir, file), { verbatimSymlinks: true });
    count += 1;
  }
  return `${count} files`;
}

/**
 * Builds in the copy. Turbo's cache is the real repository's: `pnpm test` has just built the same
 * inputs there, so this is usually a cache hit. This runs before `changeset version` because the
 * version is a build input (package.json) but not in the output.
 */
async function buildCopy(dir) {
  const result = await mustRun(
    'pnpm',
    [
      'turbo',
      'run',
      'build',
      '--filter=./packages/*',
      '--output-logs=errors-only',
      '--no-daemon',
      `--cache-dir=${path.join(ROOT, '.turbo', 'cache')}`,
    ],
    { cwd: dir, timeoutMs: 600_000 },
  );
  const cached = /Cached:\s+(\d+ cached, \d+ total)/.exec(result.stdout);
  return cached ? cached[1] : '';
}

/**
 * A patch changeset for every public package, then `changeset version` (which also applies the
 * pending changesets and writes CHANGELOG.md). Provenance is dropped in the copy only: it needs
 * CI's OIDC token and the public registry, and the local registry is neither.
 */
async function versionCopy(dir, packages) {
  const frontmatter = packages.map(({ manifest }) => `'${manifest.name}': patch`).join('\n');
  writeFileSync(
    path.join(dir, '.changeset', 'verify-release-rehearsal.md'),
    `---\n${frontmatter}\n---\n\nRelease rehearsal (pnpm verify:release).\n`,
  );
  await mustRun('pnpm', ['exec', 'changeset', 'version'], { cwd: dir });
  const versions = new Map();
  for (const { dir: packageDir } of publicPackages(dir)) {
    const file = path.join(packageDir, 'package.json');
    const manifest = readJson(file);
    if (manifest.publishConfig?.provenance !== undefined) {
      delete manifest.publishConfig.provenance;
      writeFileSync(file, `${JSON.stringify(manifest, null, 2)}\n`);
    }
    versions.set(manifest.name, manifest.version);
  }
  return versions;
}

/** A published manifest must be installable outside the workspace and must not leak `src/`. */
function manifestProblems(manifest, versions) {
  const problems = [];
  for (const field of ['dependencies', 'peerDependencies', 'optionalDependencies']) {
    for (const [name, range] of Object.entries(manifest[field] ?? {})) {
      if (range.startsWith('workspace:')) problems.push(`${field}.${name} is "${range}"`);
      if (versions.has(name) && range !== `^${versions.get(name)}`)
        problems.push(`${field}.${name} is "${range}", not "^${versions.get(name)}"`);
    }
  }
  if (JSON.stringify(manifest.exports ?? {}).includes('@ksadk/source'))
    problems.push('exports still carry the "@ksadk/source" condition (publishConfig not applied)');
  return problems;
}

async function publishAll(dir, registry, env, versions) {
  const result = await run(
    'pnpm',
    ['publish', '-r', '--registry', registry.url, '--no-git-checks', '--report-summary'],
    { cwd: dir, env, timeoutMs: 300_000 },
  );
  const summaryFile = path.join(dir, 'pnpm-publish-summary.json');
  const published = existsSync(summaryFile) ? readJson(summaryFile).publishedPackages : [];
  const output = `${result.stdout}\n${result.stderr}`.trim().split('\n').slice(-15).join('\n');
  for (const [name, version] of versions) {
    await check(`publish ${name}@${version}`, async () => {
      assert(
        published.some((entry) => entry.name === name && entry.version === version),
        `not in pnpm's publish summary (${result.status})\n${output}`,
      );
      const response = await fetch(`${registry.url}${name.replace('/', '%2f')}`);
      assert(response.ok, `the registry answers ${response.status} for ${name}`);
      const manifest = (await response.json()).versions?.[version];
      assert(manifest, `the registry has no ${name}@${version}`);
      const problems = manifestProblems(manifest, versions);
      assert(problems.length === 0, problems.join('; '));
    });
  }
}

/** The rows of the markdown tables in docs/releasing.md, cells trimmed, `\\|` unescaped. */
function releasingTableRows() {
  const doc = path.join(ROOT, 'docs', 'releasing.md');
  if (!existsSync(doc)) return [];
  return readFileSync(doc, 'utf8')
    .split('\n')
    .filter((line) => line.startsWith('|'))
    .map((line) =>
      line
        .split(/(?<!\\)\|/)
        .slice(1, -1)
        .map((cell) => cell.trim().replace(/\\\|/g, '|')),
    );
}

function unquote(cell) {
  return /^`([^`]+)`$/.exec(cell ?? '')?.[1];
}

/** The budgets, in bytes of .tgz, from the budget table (whose last column is "N kB"). */
function sizeBudgets() {
  const budgets = new Map();
  for (const cells of releasingTableRows()) {
    const budget = /^([\d.]+) kB$/.exec(cells.at(-1) ?? '');
    if (cells.length === 3 && unquote(cells[0])?.startsWith('@ksadk/') && budget)
      budgets.set(unquote(cells[0]), Number(budget[1]) * 1000);
  }
  return budgets;
}

/** The supported-versions table (package, peer, range) against every peerDependencies. */
function peerTableProblems(packages) {
  const documented = new Map();
  for (const cells of releasingTableRows()) {
    const [name, peer, range] = cells.map(unquote);
    if (cells.length === 4 && name?.startsWith('@ksadk/') && peer && range)
      documented.set(`${name} → ${peer}`, range);
  }
  const declared = new Map();
  for (const { manifest } of packages)
    for (const [peer, range] of Object.entries(manifest.peerDependencies ?? {}))
      declared.set(`${manifest.name} → ${peer}`, range);
  const problems = [];
  for (const [key, range] of declared)
    if (documented.get(key) !== range)
      problems.push(`${key}: package.json "${range}", docs "${documented.get(key) ?? 'missing'}"`);
  for (const key of documented.keys())
    if (!declared.has(key)) problems.push(`${key}: in the docs, not in package.json`);
  return problems;
}

/** Fetches a published tarball back from the registry and checks what a user would get. */
async function checkTarball(name, version, registry, env, tarDir, budgets, sizes) {
  const label = `${name}@${version}`;
  const destination = path.join(tarDir, name.replace('/', '-'));
  mkdirSync(destination);
  let packed;
  const fetched = await check(`fetch tarball ${label}`, async () => {
    const result = await mustRun(
      'npm',
      ['pack', label, '--json', '--registry', registry.url, '--pack-destination', destination],
      { cwd: destination, env },
    );
    [packed] = JSON.parse(result.stdout);
    packed.file = path.join(destination, packed.filename);
    assert(existsSync(packed.file), `npm pack wrote no ${packed.filename}`);
  });
  if (!fetched) return;
  const files = packed.files.map((entry) => entry.path);
  const manifest = readJson(path.join(ROOT, 'packages', name.split('/')[1], 'package.json'));
  const budget = budgets.get(name);
  sizes.push({ name, version, size: packed.size, unpacked: packed.unpackedSize, files, budget });

  await check(`${name} tarball: only package.json, dist/, README.md, LICENSE, CHANGELOG.md`, () => {
    const binAllowed = manifest.bin !== undefined;
    const extra = files.filter(
      (file) =>
        !TOP_LEVEL_FILES.includes(file) &&
        !file.startsWith('dist/') &&
        !(binAllowed && file.startsWith('bin/')),
    );
    const missing = TOP_LEVEL_FILES.filter((file) => !files.includes(file));
    const maps = files.filter((file) => file.endsWith('.map'));
    const problems = [
      ...(missing.length ? [`missing: ${missing.join(', ')}`] : []),
      ...(extra.length ? [`not allowed: ${extra.join(', ')}`] : []),
      ...(maps.length ? [`source maps: ${maps.join(', ')}`] : []),
    ];
    assert(problems.length === 0, problems.join('; '));
    return `${files.length} files`;
  });
  await check(`${name} tarball: size within budget`, () => {
    assert(budget, `no budget for ${name} in the table of docs/releasing.md`);
    assert(packed.size <= budget, `${kB(packed.size)} packed > budget ${kB(budget)}`);
    return `${kB(packed.size)} of ${kB(budget)}`;
  });
  await check(`${name} tarball: no test code outside ./testing`, () => {
    const exportsTesting = Object.hasOwn(manifest.exports ?? {}, './testing');
    const offending = files.filter(
      (file) => TEST_FILE.test(file) || (!exportsTesting && /(^|\/)testing\//.test(file)),
    );
    assert(offending.length === 0, `test files: ${offending.join(', ')}`);
  });
  await check(`${name} tarball: publint --strict`, async () => {
    await mustRun(path.join(BIN, 'publint'), ['run', packed.file, '--strict'], { env });
  });
  await check(`${name} tarball: attw --profile esm-only`, async () => {
    await mustRun(
      path.join(BIN, 'attw'),
      [packed.file, '--profile', 'esm-only', '--format', 'ascii', '--no-color'],
      { env },
    );
  });
}

function kB(bytes) {
  return `${(bytes / 1000).toFixed(1)} kB`;
}

/** `npm install` in `dir` from the local registry, quietly. */
function npmInstall(dir, specs, ctx) {
  const flags = ['--registry', ctx.registry.url, '--no-audit', '--no-fund', '--loglevel=error'];
  return mustRun('npm', ['install', ...specs, ...flags], {
    cwd: dir,
    env: ctx.env,
    timeoutMs: 480_000,
  });
}

/** A fresh npm project directory, as `npm init` would leave it (ESM). */
function makeProject(dir, name) {
  mkdirSync(dir);
  writeFileSync(
    path.join(dir, 'package.json'),
    `${JSON.stringify({ name, private: true, type: 'module' }, null, 2)}\n`,
  );
  writeFileSync(path.join(dir, '.npmrc'), 'engine-strict=true\n');
}

/**
 * TypeScript and @types/node at the root's pinned versions, installed once in their own directory
 * for every type check (tsc is run from there, with `typeRoots` pointing there), so the users'
 * directories hold only what they installed.
 */
function installTools(ctx) {
  const dir = path.join(ctx.appsDir, '.tools');
  const root = readJson(path.join(ROOT, 'package.json'));
  const specs = ['typescript', '@types/node'].map(
    (name) => `${name}@${pinnedVersion(name, [root])}`,
  );
  return check(`install ${specs.join(' ')} for the type checks`, async () => {
    makeProject(dir, 'verify-release-tools');
    await npmInstall(dir, specs, ctx);
    ctx.tsc = path.join(dir, 'node_modules', '.bin', 'tsc');
    ctx.typeRoots = path.join(dir, 'node_modules', '@types');
  });
}

/** The packages an example's code imports (not its tests), by package name. */
function exampleImports(sourceDir, files) {
  const names = new Set();
  for (const file of files) {
    const code = readFileSync(path.join(sourceDir, file), 'utf8');
    for (const [, specifier] of code.matchAll(/(?:\bfrom|\bimport\s*\(?)\s*'([^'./][^']*)'/g)) {
      if (specifier.startsWith('node:') || builtinModules.includes(specifier)) continue;
      const parts = specifier.split('/');
      names.add(specifier.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0]);
    }
  }
  return [...names];
}

/**
 * Installs one framework package in a fresh directory, exactly as the README's line says (each
 * name at the published or pinned version), then its example (type-checked and run) or its smoke
 * script. What the example imports beyond the line (a live-model client) comes in a second
 * `npm i`, so the first one is the user's install line and nothing else.
 */
async function checkInstall(target, line, shared) {
  // A target on another Node runs npm and its example with that Node first on PATH, as its user
  // would (npm checks `engines` against the Node running it).
  const nodeBin = target.node ? installNode(target.node) : undefined;
  // (A view over the shared context: the TypeScript tools land on it later.)
  const ctx = nodeBin
    ? Object.assign(Object.create(shared), {
        env: { ...shared.env, PATH: `${nodeBin}${path.delimiter}${shared.env.PATH}` },
      })
    : shared;
  const short = target.name.split('/')[1];
  const app = path.join(ctx.appsDir, target.label ?? short);
  // Names of this target's checks: the newest-peers run says what it runs on.
  const variant = target.node
    ? ` (Node ${NODE_RELEASES[target.node]}, ${Object.entries(target.peers ?? {})
        .map(([name, version]) => `${name}@${version}`)
        .join(' ')})`
    : '';
  const exampleManifest = target.example
    ? readJson(path.join(ROOT, 'examples', target.example, 'package.json'))
    : {};
  const sources = [
    exampleManifest,
    readJson(path.join(ROOT, 'packages', short, 'package.json')),
    readJson(path.join(ROOT, 'package.json')),
  ];
  const pin = (name) =>
    `${name}@${ctx.versions.get(name) ?? target.peers?.[name] ?? pinnedVersion(name, sources)}`;

  const names = line.replace(/^npm i /, '').split(' ');
  const installed = await check(`install ${line}${variant}`, async () => {
    assert(names[0] === target.name, `the README's line for ${target.name} installs ${names[0]}`);
    makeProject(app, 'user-app');
    await npmInstall(app, names.map(pin), ctx);
    for (const [name, version] of ctx.versions) {
      const file = path.join(app, 'node_modules', name, 'package.json');
      if (existsSync(file))
        assert(readJson(file).version === version, `${name} is not the published ${version}`);
    }
    const nested = readdirSync(path.join(app, 'node_modules', '@ksadk')).filter((dir) =>
      existsSync(path.join(app, 'node_modules', '@ksadk', dir, 'node_modules', '@ksadk')),
    );
    assert(nested.length === 0, `a second copy of @ksadk/* under ${nested.join(', ')}`);
  });
  if (!installed) return;

  if (target.smoke) {
    await check(`${target.name}: import and construct`, async () => {
      writeFileSync(path.join(app, 'smoke.mjs'), target.smoke);
      const result = await mustRun(process.execPath, ['smoke.mjs'], {
        cwd: app,
        env: userEnv(ctx.env),
      });
      assert(result.stdout.includes('smoke check passed'), result.stdout);
    });
    return;
  }

  const sourceDir = path.join(ROOT, 'examples', target.example, 'src');
  // The example's code, not its tests (the same split as examples/installed-packages).
  const files = readdirSync(sourceDir).filter(
    (file) => file.endsWith('.ts') && !/\.test(-d)?\.ts$/.test(file),
  );
  const typechecked = await check(
    `${target.example}${variant}: type-check against the installed types`,
    async () => {
      assert(await ctx.toolsReady, 'TypeScript could not be installed');
      const extras = exampleImports(sourceDir, files).filter((name) => !names.includes(name));
      if (extras.length > 0) await npmInstall(app, extras.map(pin), ctx);
      mkdirSync(path.join(app, 'src'));
      for (const file of files) cpSync(path.join(sourceDir, file), path.join(app, 'src', file));
      writeFileSync(
        path.join(app, 'tsconfig.json'),
        JSON.stringify({
          compilerOptions: {
            target: 'ES2022',
            module: 'NodeNext',
            moduleResolution: 'NodeNext',
            strict: true,
            skipLibCheck: true, // @google/adk's own declarations need it
            typeRoots: [ctx.typeRoots],
            types: ['node'],
            rootDir: 'src',
            outDir: 'out',
          },
          include: ['src/*.ts'],
        }),
      );
      // tsc emits even with type errors, so the run below still says whether the code works.
      await mustRun(ctx.tsc, ['-p', 'tsconfig.json'], { cwd: app });
      return extras.length > 0 ? `after npm i ${extras.map(pin).join(' ')}` : '';
    },
  );
  await check(`${target.example}${variant}: run offline (scripted model)`, async () => {
    const main = path.join(app, 'out', 'main.js');
    assert(existsSync(main), typechecked ? 'tsc wrote no out/main.js' : 'not compiled');
    const node = nodeBin ? path.join(nodeBin, 'node') : process.execPath;
    const result = await mustRun(node, [main], {
      cwd: app,
      env: userEnv(ctx.env),
      timeoutMs: 120_000,
    });
    const tail = (text) => text.split('\n').slice(-10).join('\n');
    assert(result.stdout.includes('example check passed'), tail(result.stdout));
    assert(!/Error/.test(result.stderr), tail(result.stderr));
  });
}

/** The examples run their scripted model when no API key is set. */
function userEnv(base) {
  const env = { ...base };
  for (const key of ['OPENAI_API_KEY', 'GEMINI_API_KEY', 'GOOGLE_GENAI_API_KEY']) delete env[key];
  return env;
}

function printSizes(sizes) {
  log('\ntarball sizes (packed .tgz, budget from docs/releasing.md):');
  const rows = [
    ['package', 'version', 'files', 'packed', 'unpacked', 'budget', ''],
    ...sizes
      .sort((a, b) => a.name.localeCompare(b.name))
      .map((entry) => [
        entry.name,
        entry.version,
        String(entry.files.length),
        kB(entry.size),
        kB(entry.unpacked),
        entry.budget ? kB(entry.budget) : '—',
        entry.budget && entry.size <= entry.budget ? 'ok' : 'OVER',
      ]),
  ];
  const widths = rows[0].map((_, column) => Math.max(...rows.map((row) => row[column].length)));
  for (const row of rows)
    log(
      `  ${row
        .map((cell, column) => cell.padEnd(widths[column]))
        .join('  ')
        .trimEnd()}`,
    );
}

// ---------------------------------------------------------------------------------------------

async function main() {
  const started = performance.now();
  const work = makeTempDir('ksadk-verify-release-');
  const copy = path.join(work, 'repo');
  const registryDir = path.join(work, 'registry');
  const appsDir = path.join(work, 'apps');
  const tarDir = path.join(work, 'tarballs');
  const childTmp = path.join(work, 'tmp');
  for (const dir of [copy, registryDir, appsDir, tarDir, childTmp]) mkdirSync(dir);
  const sizes = [];
  rmSync(RESULT_FILE, { force: true }); // an interrupted run must not leave the last run's counts
  try {
    const npmCache = (await mustRun('npm', ['config', 'get', 'cache'])).stdout.trim();
    const lines = readmeInstallLines();
    await step('documentation', async () => {
      await check('README.md, docs/ and the package READMEs give the same npm i lines', () => {
        const missing = TARGETS.filter((target) => !lines.has(target.name));
        assert(
          missing.length === 0,
          `README.md has no line for ${missing.map((t) => t.name).join(', ')}`,
        );
        const problems = installLineDisagreements(lines);
        assert(problems.length === 0, problems.join('\n'));
      });
      await check('docs/releasing.md gives the peerDependencies ranges', () => {
        const problems = peerTableProblems(publicPackages(ROOT));
        assert(problems.length === 0, problems.join('\n'));
      });
    });

    let registry;
    await step('local registry', () =>
      setup('start Verdaccio', async () => {
        registry = await startRegistry(registryDir);
        return `${registry.url} (uplink ${registry.uplink})`;
      }),
    );
    // npm and pnpm see only this config (not ~/.npmrc): the registry and a token (npm refuses to
    // publish without one; Verdaccio lets anyone publish @ksadk/*). The user's npm cache is
    // reused, which is safe: Verdaccio's package documents carry no freshness headers, so npm
    // revalidates them every time (a rebuilt 0.x.y is never taken from the cache), and tarballs
    // are looked up by integrity. Children's temp files go under our temp dir.
    const npmrc = path.join(work, 'npmrc');
    const host = registry.url.replace(/^http:/, '');
    writeFileSync(npmrc, `registry=${registry.url}\n${host}:_authToken=verify-release\n`);
    const env = {
      ...process.env,
      npm_config_userconfig: npmrc,
      npm_config_cache: npmCache,
      npm_config_update_notifier: 'false',
      TMPDIR: childTmp,
    };

    let versions;
    const packages = publicPackages(ROOT);
    await step('copy, build, version', async () => {
      await setup('copy the working tree', () => copyRepository(copy));
      await setup('pnpm install in the copy (from the store)', async () => {
        await mustRun('pnpm', ['install', '--frozen-lockfile', '--prefer-offline'], {
          cwd: copy,
          timeoutMs: 300_000,
        });
      });
      await setup('build the packages', () => buildCopy(copy));
      await setup('changeset version with a patch for every public package', async () => {
        versions = await versionCopy(copy, packages);
        return [...versions].map(([name, version]) => `${name}@${version}`).join(', ');
      });
    });

    await step('publish to the local registry', () => publishAll(copy, registry, env, versions));

    const budgets = sizeBudgets();
    await step('published tarballs', () =>
      inPool([...versions], 2, ([name, version]) =>
        checkTarball(name, version, registry, env, tarDir, budgets, sizes),
      ),
    );

    await step('install each framework package alone, with npm', async () => {
      const ctx = { registry, env, versions, appsDir };
      ctx.toolsReady = installTools(ctx);
      await inPool(TARGETS, 3, (target) => checkInstall(target, lines.get(target.name), ctx));
      await ctx.toolsReady;
    });
  } catch (error) {
    if (!(error instanceof Abort))
      await check('verify:release itself', () => Promise.reject(error));
    log('\nstopped: the checks after a failed setup step cannot run');
  } finally {
    await stopRegistry();
    cleanUpNow();
  }
  if (sizes.length > 0) printSizes(sizes);
  const passed = checks.filter((c) => c.ok).length;
  const failed = checks.length - passed;
  writeFileSync(
    RESULT_FILE,
    `${JSON.stringify({ passed, failed, failedChecks: checks.filter((c) => !c.ok).map((c) => c.name) }, null, 2)}\n`,
  );
  log(`\ntotal: ${seconds(started)}`);
  log(`verify:release: ${passed} passed, ${failed} failed`);
  return failed === 0 ? 0 : 1;
}

process.on('exit', cleanUpNow);
for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) {
  process.on(signal, () => {
    log(`\n${signal}: stopping`);
    process.exit(130);
  });
}
process.exitCode = await main();
