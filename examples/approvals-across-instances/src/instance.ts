// One server instance, as a process: `node --import tsx src/instance.ts <framework> <store> <phase>
// <run dir> <run id> <namespace>`. It builds its own gateway on the shared approval store (the
// same KSADK_APPROVAL_SECRET as every instance), runs one phase of the story, prints one JSON line
// and exits — so nothing survives between phases but the stores.
import path from 'node:path';
import { createToolGateway, runWithInvocationContext } from '@ksadk/core';
import type { FrameworkStory } from './frameworks/story.js';
import { invoiceTool } from './invoice-tool.js';
import { approvalStoreFor, type StoreKind } from './stores.js';

/** Each framework's story, loaded only when used (a process loads one framework). */
const STORIES: Record<string, () => Promise<FrameworkStory>> = {
  openai: async () => (await import('./frameworks/openai-story.js')).openAIStory,
  langgraph: async () => (await import('./frameworks/langgraph-story.js')).langGraphStory,
  adk: async () => (await import('./frameworks/adk-story.js')).adkStory,
};

async function main(): Promise<unknown> {
  const [framework = '', store = '', phase = '', runDir = '', runId = '', namespace = ''] =
    process.argv.slice(2);
  const load = STORIES[framework];
  if (!load || (store !== 'redis' && store !== 'postgres') || !['pause', 'resume'].includes(phase))
    throw new Error(
      'usage: instance.ts openai|langgraph|adk redis|postgres pause|resume <dir> <run id> <namespace>',
    );
  const urls = {
    redisUrl: process.env['REDIS_URL'] ?? '',
    postgresUrl: process.env['DATABASE_URL'] ?? '',
    // ADK's sessions: a database of their own when given (the tests give one), else DATABASE_URL.
    adkSessionsUrl: process.env['ADK_SESSIONS_URL'] || process.env['DATABASE_URL'] || '',
  };
  const story = await load();
  const approvalStore = await approvalStoreFor(store as StoreKind, urls, namespace);
  // A shared store: the gateway refuses to start unless KSADK_APPROVAL_SECRET is set.
  const gateway = createToolGateway({ approvalStore });
  const context = {
    runDir,
    runId,
    gateway,
    tool: invoiceTool(path.join(runDir, 'sent.log')),
    urls,
    namespace,
  };
  try {
    // The host's tenant: the same account and user on every instance.
    return await runWithInvocationContext(
      { accountId: 'acme-corp', userId: 'alice', sessionId: runId },
      () =>
        phase === 'pause'
          ? story.pause(context).then((approvalId) => ({ approvalId }))
          : story.resume(context),
    );
  } finally {
    await approvalStore.close?.();
  }
}

main().then(
  (report) => {
    process.stdout.write(
      `${JSON.stringify({ ok: true, pid: process.pid, ...(report as object) })}\n`,
    );
    process.exit(0);
  },
  (error: unknown) => {
    process.stdout.write(
      `${JSON.stringify({ ok: false, pid: process.pid, error: error instanceof Error ? error.message : String(error) })}\n`,
    );
    process.exit(1);
  },
);
