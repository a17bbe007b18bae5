// pnpm start: the story once per framework, each phase in a fresh process — paused on "instance A",
// approved and resumed on "instance B", then resumed twice more — on the store named by
// APPROVAL_STORE_KIND (redis | postgres, default postgres). Needs DATABASE_URL (PostgreSQL:
// LangGraph checkpoints, ADK sessions) and, for Redis, REDIS_URL; KSADK_APPROVAL_SECRET is made up
// here when unset.
import { execFileSync } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

const store = process.env['APPROVAL_STORE_KIND'] ?? 'postgres';
if (!process.env['DATABASE_URL'] || (store === 'redis' && !process.env['REDIS_URL'])) {
  console.error('Set DATABASE_URL (and REDIS_URL for the Redis store) to run this example.');
  process.exit(2);
}
const env = {
  ...process.env,
  KSADK_APPROVAL_SECRET: process.env['KSADK_APPROVAL_SECRET'] ?? randomBytes(32).toString('hex'),
};

function instance(
  framework: string,
  phase: string,
  dir: string,
  id: string,
): Record<string, unknown> {
  const args = [
    '--import',
    'tsx',
    'src/instance.ts',
    framework,
    store,
    phase,
    dir,
    `run-${id}`,
    `ex_${store}_${id}`,
  ];
  try {
    return JSON.parse(
      execFileSync(process.execPath, args, { env, encoding: 'utf8' }).trim().split('\n').at(-1) ??
        '{}',
    );
  } catch (error) {
    return { ok: false, error: (error as { stdout?: string }).stdout ?? String(error) };
  }
}

let failed = false;
for (const framework of ['openai', 'langgraph', 'adk']) {
  const dir = mkdtempSync(path.join(tmpdir(), 'ksadk-story-'));
  const id = randomUUID().replaceAll('-', '').slice(0, 12);
  const paused = instance(framework, 'pause', dir, id);
  const resumed = instance(framework, 'resume', dir, id);
  const again = instance(framework, 'resume', dir, id);
  const sent = readFileSync(path.join(dir, 'sent.log'), 'utf8').trim().split('\n');
  rmSync(dir, { recursive: true, force: true });
  const once = sent.length === 1 && paused['ok'] === true && resumed['ok'] === true;
  failed ||= !once;
  console.log(
    `${framework.padEnd(9)} on ${store}: paused in pid ${paused['pid']} (${paused['approvalId']}), ` +
      `approved and run in pid ${resumed['pid']}, resumed again in pid ${again['pid']} ` +
      `(${again['toolErrorType'] ?? 'tool not called'}) — the invoice was sent ${sent.length} time(s).`,
  );
}
process.exit(failed ? 1 : 0);
