import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createToolGateway, isApprovalRequired, runWithInvocationContext } from '@ksadk/core';
import { afterAll, expect, inject, it } from 'vitest';
import { INVOICE_ARGS, invoiceTool } from './invoice-tool.js';
import { approvalStoreFor } from './stores.js';
import { describeWithServices, services } from './test-services.js';

const exampleDir = fileURLToPath(new URL('..', import.meta.url));
const { redisUrl, postgresUrl } = services;
const SECRET = 'the-one-secret-every-instance-shares';
const env = {
  ...process.env,
  REDIS_URL: redisUrl,
  DATABASE_URL: postgresUrl,
  ADK_SESSIONS_URL: inject('adkSessionsUrl'),
  KSADK_APPROVAL_SECRET: SECRET,
};
const dirs: string[] = [];
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

interface Report {
  ok: boolean;
  pid: number;
  approvalId?: string;
  output?: string;
  toolErrorType?: string;
  error?: string;
  ran?: number;
}

/** Runs one fresh `node` process of the example and reads its one-line JSON report. */
function runProcess(script: string, args: string[]): Promise<Report> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', script, ...args], {
      cwd: exampleDir,
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
      timeout: 240_000,
    });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      stdout += chunk;
    });
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
      stderr += chunk.slice(0, 4000);
    });
    child.on('error', reject);
    child.on('close', (code, signal) => {
      const line = stdout.trim().split('\n').at(-1) ?? '';
      try {
        resolve(JSON.parse(line) as Report);
      } catch {
        reject(
          new Error(`process ended (${code ?? signal}) without a report: ${stdout}\n${stderr}`),
        );
      }
    });
  });
}

const sentLines = (dir: string): string[] => {
  const file = path.join(dir, 'sent.log');
  return existsSync(file) ? readFileSync(file, 'utf8').trim().split('\n').filter(Boolean) : [];
};

function newRun(framework: string, store: string) {
  const dir = mkdtempSync(path.join(tmpdir(), `ksadk-across-${framework}-`));
  dirs.push(dir);
  const id = randomUUID().replaceAll('-', '').slice(0, 12);
  const instance = (phase: 'pause' | 'resume') =>
    runProcess('src/instance.ts', [framework, store, phase, dir, `run-${id}`, `ex_${store}_${id}`]);
  return { dir, instance };
}

/**
 * Which frameworks run on which approval store. The store's guarantees do not depend on the
 * framework, nor the framework's pause on the store: every framework runs on one store, every store
 * under two frameworks, OpenAI (the cheapest processes) on both. A whole matrix doubled the slowest
 * test of the CI run (ADK's processes load the whole ADK) and proved nothing more.
 */
const FRAMEWORKS_ON = {
  redis: ['openai', 'langgraph'],
  // ADK's sessions live in PostgreSQL anyway (as LangGraph's checkpoints do, whatever the store).
  postgres: ['openai', 'adk'],
} as const;

for (const store of ['redis', 'postgres'] as const) {
  describeWithServices(
    `approvals on ${store}, across processes`,
    [...new Set([store, 'postgres' as const])],
    () => {
      for (const framework of FRAMEWORKS_ON[store]) {
        it(`${framework}: paused in one process, approved and resumed in another, run once; two more resumes of the same pause run nothing`, async () => {
          const run = newRun(framework, store);
          const paused = await run.instance('pause');
          expect(paused, paused.error).toMatchObject({
            ok: true,
            approvalId: expect.stringMatching(/^appr_/),
          });
          expect(sentLines(run.dir)).toEqual([]);

          const resumed = await run.instance('resume');
          expect(resumed, resumed.error).toMatchObject({
            ok: true,
            output: 'The invoice is on its way.',
          });
          expect(resumed.toolErrorType).toBeUndefined();
          expect(sentLines(run.dir)).toEqual([`${resumed.pid} ACME 1200`]);

          // A and B (fresh processes again) race to resume the very same pause.
          const racers = await Promise.all([run.instance('resume'), run.instance('resume')]);
          expect(sentLines(run.dir)).toHaveLength(1);
          for (const racer of racers.filter((report) => report.ok))
            expect(['approval_already_used', 'not_called']).toContain(racer.toolErrorType);
        });

        it(`${framework}: two processes racing on a fresh pause run the tool once`, async () => {
          const run = newRun(framework, store);
          expect((await run.instance('pause')).ok).toBe(true);
          const racers = await Promise.all([run.instance('resume'), run.instance('resume')]);
          const lines = sentLines(run.dir);
          expect(lines).toHaveLength(1);
          const winner = racers.find((report) => report.ok && report.toolErrorType === undefined);
          expect(winner, JSON.stringify(racers)).toBeDefined();
          expect(lines[0]).toBe(`${winner?.pid} ACME 1200`);
        });
      }

      it('1,000 concurrent uses of one grant from 4 processes run the tool once', async () => {
        const dir = mkdtempSync(path.join(tmpdir(), 'ksadk-consume-'));
        dirs.push(dir);
        const namespace = `race_${store}_${randomUUID().replaceAll('-', '').slice(0, 12)}`;
        const sentLog = path.join(dir, 'sent.log');
        const approvalStore = await approvalStoreFor(store, { redisUrl, postgresUrl }, namespace);
        const gateway = createToolGateway({ approvalStore, approvalSecret: SECRET });
        const grant = await runWithInvocationContext(
          { accountId: 'acme-corp', userId: 'alice', sessionId: 'race' },
          async () => {
            const asked = await gateway.invoke(invoiceTool(sentLog), INVOICE_ARGS);
            if (!isApprovalRequired(asked)) throw new Error('expected approval_required');
            return gateway.approve(asked.approval_request.id);
          },
        );
        await approvalStore.close?.();
        const reports = await Promise.all(
          Array.from({ length: 4 }, () =>
            runProcess('src/consume-race.ts', [store, namespace, sentLog, grant.token, '250']),
          ),
        );
        expect(reports.reduce((sum, report) => sum + (report.ran ?? 0), 0)).toBe(1);
        expect(readFileSync(sentLog, 'utf8').trim().split('\n')).toHaveLength(1);
        expect(
          reports.flatMap((report) => (report as { unexpected?: unknown[] }).unexpected ?? []),
        ).toEqual([]);
      });
    },
  );
}
