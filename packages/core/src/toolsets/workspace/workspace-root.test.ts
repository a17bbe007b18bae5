import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { runWithInvocationContext } from '../../context/invocation-context.js';
import { createToolGateway } from '../../gateway/create-tool-gateway.js';
import { defineTool } from '../../tool/define-tool.js';
import { createWorkspaceToolset } from './index.js';
import { defaultWorkspaceRoot } from './workspace-root.js';

let base: string;
beforeEach(async () => {
  base = await mkdtemp(path.join(tmpdir(), 'ksadk-root-'));
});
afterEach(() => rm(base, { recursive: true, force: true }));

describe('workspace roots', () => {
  it('defaults to <session dir>/workspace, honouring AGENTENGINE_UI_DIR and KSADK_PROJECT_DIR', () => {
    expect(defaultWorkspaceRoot({ AGENTENGINE_UI_DIR: '/srv/ui' })).toBe('/srv/ui/workspace');
    expect(defaultWorkspaceRoot({ KSADK_PROJECT_DIR: '/srv/app' })).toBe(
      '/srv/app/.agentengine/ui/workspace',
    );
  });

  it('can be a function of the invocation context, so each account has its own files', async () => {
    const { tools } = createWorkspaceToolset({
      root: (context) => path.join(base, context.accountId ?? 'anonymous'),
      useRipgrep: false,
    });
    const gateway = createToolGateway({ approvalMode: 'full', env: {} });
    const [write, read] = ['write_workspace_file', 'read_workspace_file'].map(
      (name) => tools.find((tool) => tool.name === name)!,
    );
    await runWithInvocationContext({ accountId: 'acme' }, () =>
      gateway.invoke(write!, { path: 'plan.txt', content: 'acme plan' }),
    );
    await runWithInvocationContext({ accountId: 'globex' }, () =>
      gateway.invoke(write!, { path: 'plan.txt', content: 'globex plan' }),
    );
    expect(await readFile(path.join(base, 'acme', 'plan.txt'), 'utf8')).toBe('acme plan');
    const globex = await runWithInvocationContext({ accountId: 'globex' }, () =>
      gateway.invoke(read!, { path: 'plan.txt', include_line_numbers: false }),
    );
    expect(globex['content']).toBe('globex plan');
  });

  it("saves a long read inside the caller's own root, so the model can read it back", async () => {
    const { tools } = createWorkspaceToolset({
      root: (context) => path.join(base, context.accountId ?? 'anonymous'),
      useRipgrep: false,
    });
    const gateway = createToolGateway({
      approvalMode: 'full',
      env: { AGENTENGINE_UI_DIR: path.join(base, 'elsewhere') },
    });
    const [write, read] = ['write_workspace_file', 'read_workspace_file'].map(
      (name) => tools.find((tool) => tool.name === name)!,
    );
    const long = `${'line of text\n'.repeat(300)}`;
    const first = await runWithInvocationContext(
      { accountId: 'acme', sessionId: 's' },
      async () => {
        await gateway.invoke(write!, { path: 'long.txt', content: long });
        return gateway.invoke(read!, {
          path: 'long.txt',
          include_line_numbers: false,
          max_chars: 1000,
        });
      },
    );
    expect(first).toMatchObject({ ok: true, truncated: true });
    const handle = (first['persisted_outputs'] as { content: { path: string } }).content.path;
    expect(handle.startsWith('.tool-results/acme/s/')).toBe(true);
    const again = await runWithInvocationContext({ accountId: 'acme', sessionId: 's' }, () =>
      gateway.invoke(read!, { path: handle, include_line_numbers: false, max_chars: 100_000 }),
    );
    expect(again['content']).toBe(long.trimEnd());
  });
});

describe('a gateway told the workspace root', () => {
  it("saves any tool's large output in the caller's root, readable with read_workspace_file", async () => {
    const root = (context: { accountId?: string }) =>
      path.join(base, 'roots', context.accountId ?? 'anonymous');
    const { tools } = createWorkspaceToolset({ root, useRipgrep: false });
    const read = tools.find((tool) => tool.name === 'read_workspace_file')!;
    const gateway = createToolGateway({
      approvalMode: 'full',
      workspaceRoot: root,
      budget: { maxChars: 1000 },
      env: {},
    });
    const remote = defineTool({
      name: 'remote_report',
      description: 'A long report from elsewhere.',
      input: z.object({}),
      resultBudget: { fields: ['text'] },
      execute: () => ({ ok: true, text: 'r'.repeat(5000) }),
    });
    const result = await runWithInvocationContext({ accountId: 'globex', sessionId: 's1' }, () =>
      gateway.invoke(remote, {}, { callId: 'call_9' }),
    );
    expect(result).toMatchObject({ ok: true, text_truncated: true });
    const handle = (result['persisted_outputs'] as { text: { path: string } }).text.path;
    expect(handle).toBe('.tool-results/globex/s1/call_9.text.txt');
    const back = await runWithInvocationContext({ accountId: 'globex', sessionId: 's1' }, () =>
      gateway.invoke(read, { path: handle, include_line_numbers: false, max_chars: 100_000 }),
    );
    // The read back is budgeted by the same gateway cap (1000), but it is the whole report.
    expect(back).toMatchObject({ ok: true, original_chars: 5000, content: 'r'.repeat(1000) });
  });
});
