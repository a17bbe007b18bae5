import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { runWithInvocationContext } from '../context/invocation-context.js';
import { createToolGateway } from '../gateway/create-tool-gateway.js';
import { defineTool } from '../tool/define-tool.js';
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

  it('receives ids as safe segments, so a root built from an id cannot be steered into another', async () => {
    const root = ({ accountId }: { accountId: string }) => path.join(base, 'srv', accountId);
    const { tools } = createWorkspaceToolset({ root, useRipgrep: false });
    const gateway = createToolGateway({ approvalMode: 'full', env: {} });
    const [write, read] = ['write_workspace_file', 'read_workspace_file'].map(
      (name) => tools.find((tool) => tool.name === name)!,
    );
    await runWithInvocationContext({ accountId: 'victim' }, () =>
      gateway.invoke(write!, { path: 'secret.txt', content: 'victim data' }),
    );
    for (const accountId of ['x/../victim', '../srv/victim', '..', 'victim/.', 'VICTIM']) {
      const stolen = await runWithInvocationContext({ accountId }, () =>
        gateway.invoke(read!, { path: 'secret.txt' }),
      );
      expect(stolen, accountId).toMatchObject({ ok: false, error_type: 'not_found' });
    }
    const own = await runWithInvocationContext({ accountId: 'victim' }, () =>
      gateway.invoke(read!, { path: 'secret.txt', include_line_numbers: false }),
    );
    expect(own['content']).toBe('victim data');
  });

  it('cuts a long read and points to line ranges instead of saving another copy', async () => {
    const { tools } = createWorkspaceToolset({ root: base, useRipgrep: false });
    const gateway = createToolGateway({
      approvalMode: 'full',
      env: { AGENTENGINE_UI_DIR: path.join(base, 'elsewhere') },
    });
    const [write, read] = ['write_workspace_file', 'read_workspace_file'].map(
      (name) => tools.find((tool) => tool.name === name)!,
    );
    const long = `${'line of text\n'.repeat(300)}`;
    await gateway.invoke(write!, { path: 'long.txt', content: long });
    for (let attempt = 0; attempt < 3; attempt += 1) {
      const result = await gateway.invoke(read!, { path: 'long.txt', max_chars: 1000 });
      expect(result).toMatchObject({ ok: true, truncated: true, partial: true });
      expect(result).not.toHaveProperty('persisted_outputs');
      expect(result['suggested_action']).toMatch(/start_line/);
    }
    await expect(readdir(path.join(base, 'elsewhere', 'tool-results'))).rejects.toThrow();
  });
});

describe('persisted outputs', () => {
  it("are readable back by handle in the caller's own account and session only, outside every workspace", async () => {
    const root = ({ accountId }: { accountId: string }) => path.join(base, 'roots', accountId);
    const { tools } = createWorkspaceToolset({ root, useRipgrep: false });
    const [read, list] = ['read_workspace_file', 'list_workspace_files'].map(
      (name) => tools.find((tool) => tool.name === name)!,
    );
    const gateway = createToolGateway({
      approvalMode: 'full',
      budget: { maxChars: 1000 },
      env: { AGENTENGINE_UI_DIR: path.join(base, 'ui') },
    });
    const remote = defineTool({
      name: 'remote_report',
      description: 'A long report from elsewhere.',
      input: z.object({}),
      resultBudget: { fields: ['text'] },
      execute: () => ({ ok: true, text: 'r'.repeat(5000) }),
    });
    const owner = { accountId: 'globex', sessionId: 's1' };
    const result = await runWithInvocationContext(owner, () =>
      gateway.invoke(remote, {}, { callId: 'call_9' }),
    );
    expect(result).toMatchObject({ ok: true, text_truncated: true });
    const handle = (result['persisted_outputs'] as { text: { path: string } }).text.path;
    expect(handle).toBe('tool-results://call_9.text.txt');
    const back = await runWithInvocationContext(owner, () =>
      gateway.invoke(read!, { path: handle, include_line_numbers: false, max_chars: 100_000 }),
    );
    // The read back is budgeted by the same gateway cap (1000), but it is the whole report.
    expect(back).toMatchObject({ ok: true, original_chars: 5000, content: 'r'.repeat(1000) });
    for (const other of [
      { accountId: 'acme', sessionId: 's1' },
      { accountId: 'globex', sessionId: 's2' },
      {},
    ]) {
      const stolen = await runWithInvocationContext(other, () =>
        gateway.invoke(read!, { path: handle }),
      );
      expect(stolen, JSON.stringify(other)).toMatchObject({ ok: false, error_type: 'not_found' });
    }
    for (const forged of [
      'tool-results://../s1/call_9.text.txt',
      'tool-results://.',
      'tool-results://',
    ]) {
      const refused = await runWithInvocationContext(owner, () =>
        gateway.invoke(read!, { path: forged }),
      );
      expect(refused, forged).toMatchObject({ ok: false, error_type: 'not_found' });
    }
    // Nothing of it shows in any workspace: not the owner's, not another account's.
    for (const context of [owner, { accountId: 'acme', sessionId: 's1' }]) {
      const listing = await runWithInvocationContext(context, () =>
        gateway.invoke(list!, { recursive: true }),
      );
      expect(JSON.stringify(listing)).not.toMatch(/call_9|tool-results|globex/);
    }
  });
});
