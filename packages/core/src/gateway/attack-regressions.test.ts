// Regressions for what an independent attack on the hardened gateway found; each test is named
// after the guarantee it keeps.
import {
  mkdir,
  mkdtemp,
  readdir,
  readFile,
  rm,
  symlink,
  utimes,
  writeFile,
} from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { runWithInvocationContext } from '../context/invocation-context.js';
import { createFileMemoryBackend } from '../memory/memory-stores.js';
import { createMemoryToolset } from '../memory/tools/index.js';
import { defineJsonSchemaTool, defineTool } from '../tool/define-tool.js';
import type { Tool } from '../tool/tool.js';
import { canonicalDigest } from '../util/canonical-json.js';
import { redactSecrets, registerSecret } from '../util/redact.js';
import { echoValue } from '../util/sanitize-message.js';
import { createWorkspaceToolset } from '../workspace/index.js';
import { createToolGateway } from './create-tool-gateway.js';
import { isApprovalRequired } from './results.js';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'ksadk-attack-'));
});
afterEach(() => rm(dir, { recursive: true, force: true }));

const toolReturning = (name: string, value: () => unknown): Tool =>
  defineTool({ name, description: 'Returns.', input: z.object({}), execute: value });

describe('the result store never follows a planted symlink', () => {
  it('a symlinked session folder is neither read through, written into, nor swept', async () => {
    const persistDir = path.join(dir, 'results');
    const outside = path.join(dir, 'outside');
    await mkdir(path.join(persistDir, '_'), { recursive: true });
    await mkdir(outside);
    await writeFile(path.join(outside, 'id_rsa'), 'PRIVATE KEY');
    await writeFile(path.join(outside, 'doc.txt'), 'keep me');
    const old = new Date(Date.now() - 3 * 86_400_000);
    await utimes(path.join(outside, 'doc.txt'), old, old);
    await symlink(outside, path.join(persistDir, '_', '_'));
    const gateway = createToolGateway({
      approvalMode: 'full',
      env: {},
      budget: { maxChars: 100, persistDir, retention: { maxAgeMs: 1000 } },
    });
    const { tools } = createWorkspaceToolset({ root: path.join(dir, 'ws'), useRipgrep: false });
    const read = tools.find((tool) => tool.name === 'read_workspace_file')!;
    expect(await gateway.invoke(read, { path: 'tool-results://id_rsa' })).toMatchObject({
      ok: false,
      error_type: 'not_found',
    });
    const big = await gateway.invoke(
      toolReturning('big', () => ({ ok: true, text: 'z'.repeat(5000) })),
      {},
    );
    // The tool ran: the model gets its preview, and is told the full text was not saved.
    expect(big).toMatchObject({
      ok: true,
      result_truncated: true,
      persist_errors: { result: expect.stringContaining('the full output was not saved') },
    });
    expect(big).not.toHaveProperty('persisted_outputs');
    expect((await readdir(outside)).sort()).toEqual(['doc.txt', 'id_rsa']);
    // Another session's store works, and its sweep leaves the symlinked folder alone.
    const other = await runWithInvocationContext({ accountId: 'a', sessionId: 's' }, () =>
      gateway.invoke(
        toolReturning('big2', () => ({ ok: true, text: 'y'.repeat(5000) })),
        {},
      ),
    );
    expect(other).toMatchObject({ ok: true, result_truncated: true });
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(await readFile(path.join(outside, 'doc.txt'), 'utf8')).toBe('keep me');
  });

  it('search_workspace_files says so when the store cannot save its long result list', async () => {
    await writeFile(path.join(dir, 'blocker'), 'not a folder');
    const gateway = createToolGateway({
      approvalMode: 'full',
      env: {},
      budget: {
        maxChars: 400,
        previewChars: 200,
        persistDir: path.join(dir, 'blocker', 'results'),
      },
    });
    const root = path.join(dir, 'search-ws');
    await mkdir(root, { recursive: true });
    await writeFile(path.join(root, 'notes.txt'), 'needle here\n'.repeat(200));
    const { tools } = createWorkspaceToolset({ root, useRipgrep: false });
    const search = tools.find((tool) => tool.name === 'search_workspace_files')!;
    const result = await gateway.invoke(search, { query: 'needle', max_results: 200 });
    expect(result).toMatchObject({
      ok: true,
      results_truncated: true,
      persist_errors: { results: expect.stringContaining('the full output was not saved') },
    });
    expect(result).not.toHaveProperty('persisted_outputs');
  });

  it('a store that cannot save (its folder is under a file) loses nothing: the tool ran once and its preview comes back', async () => {
    await writeFile(path.join(dir, 'a file'), 'not a folder');
    const gateway = createToolGateway({
      approvalMode: 'full',
      env: {},
      budget: { maxChars: 100, persistDir: path.join(dir, 'a file', 'results') },
    });
    let runs = 0;
    const sideEffect = defineTool({
      name: 'deploy',
      description: 'Deploys, then prints a long log.',
      input: z.object({}),
      resultBudget: { fields: ['log'] },
      execute: () => {
        runs += 1;
        return { ok: true, deployed: true, log: `line\n`.repeat(2_000) };
      },
    });
    const fielded = await gateway.invoke(sideEffect, {});
    expect(runs).toBe(1);
    expect(fielded).toMatchObject({
      ok: true,
      deployed: true,
      log_truncated: true,
      persist_errors: { log: expect.stringContaining('only this preview is kept') },
    });
    expect(String(fielded['log'])).toMatch(/^line\n/);
    const whole = await gateway.invoke(
      toolReturning('whole', () => ({ ok: true, text: 'q'.repeat(5000) })),
      {},
    );
    expect(whole).toMatchObject({ ok: true, result_truncated: true });
    expect(JSON.stringify([fielded, whole])).not.toContain(dir);
  });

  it('refuses a symlink at the default location rather than following it', async () => {
    const project = path.join(dir, 'project');
    const elsewhere = path.join(dir, 'elsewhere');
    await mkdir(path.join(project, '.agentengine', 'ui'), { recursive: true });
    await mkdir(elsewhere);
    await symlink(elsewhere, path.join(project, '.agentengine', 'ui', 'tool-results'));
    const gateway = createToolGateway({
      approvalMode: 'full',
      env: { KSADK_PROJECT_DIR: project },
      budget: { maxChars: 100 },
    });
    const result = await gateway.invoke(
      toolReturning('big', () => ({ ok: true, text: 'z'.repeat(5000) })),
      {},
    );
    // Nothing written through the symlink; the model gets the preview and is told so.
    expect(result).toMatchObject({ ok: true, result_truncated: true, persist_errors: {} });
    expect(await readdir(elsewhere)).toEqual([]);
  });
});

describe('private folders inside a workspace root stay private', () => {
  it('with the project folder as the workspace, saved outputs and memory files cannot be listed, searched or read', async () => {
    const project = path.join(dir, 'project');
    await mkdir(project);
    const env = { KSADK_PROJECT_DIR: project };
    const gateway = createToolGateway({ approvalMode: 'full', env, budget: { maxChars: 100 } });
    const memoryDir = path.join(project, '.agentengine', 'memory');
    const memory = createMemoryToolset({ memory: createFileMemoryBackend({ dir: memoryDir }) });
    const { tools } = createWorkspaceToolset({ root: project, useRipgrep: false });
    const byName = (name: string) => [...tools, ...memory].find((tool) => tool.name === name)!;
    const victim = { accountId: 'victim', userId: 'v', sessionId: 'v1' };
    await runWithInvocationContext(victim, async () => {
      await gateway.invoke(byName('save_memory'), { content: 'victim secret plan' });
      await gateway.invoke(
        toolReturning('big', () => ({ ok: true, text: `victim report ${'r'.repeat(5000)}` })),
        {},
      );
    });
    const mallory = { accountId: 'mallory', sessionId: 'm1' };
    await runWithInvocationContext(mallory, async () => {
      const listing = await gateway.invoke(byName('list_workspace_files'), { recursive: true });
      expect(JSON.stringify(listing)).not.toMatch(/tool-results|memory|victim/);
      const found = await gateway.invoke(byName('search_workspace_files'), { query: 'victim' });
      expect(found).toMatchObject({ ok: true, match_count: 0 });
      const direct = await gateway.invoke(byName('read_workspace_file'), {
        path: '.agentengine/ui/tool-results',
      });
      expect(direct).toMatchObject({ ok: false, error_type: 'path_outside_workspace' });
      const memories = await gateway.invoke(byName('list_workspace_files'), {
        path: '.agentengine/memory',
      });
      expect(memories).toMatchObject({ ok: false, error_type: 'path_outside_workspace' });
    });
  });
});

describe('every credential leaving a tool is redacted, whatever carries it', () => {
  const secret = 'sk-live-ATTACK0123456789xyz';
  beforeEach(() => registerSecret(secret));

  it('class instances, URLs and toJSON values are reduced to JSON before redaction', async () => {
    class Box {
      constructor(readonly value: string) {}
    }
    const gateway = createToolGateway({ approvalMode: 'full', env: { AGENTENGINE_UI_DIR: dir } });
    const result = await gateway.invoke(
      toolReturning('odd', () => ({
        ok: true,
        box: new Box(`key=${secret}`),
        url: new URL(`https://user:${secret}@api.example.com/`),
        json: { toJSON: () => secret },
        when: new Date(0),
        count: 10n,
      })),
      {},
    );
    const text = JSON.stringify(result);
    expect(text).not.toContain(secret);
    expect(result).toMatchObject({ ok: true, when: '1970-01-01T00:00:00.000Z', count: '10' });
  });

  it('a toJSON that throws with a secret and a host path becomes a clean tool_error', async () => {
    const gateway = createToolGateway({ approvalMode: 'full', env: {} });
    const result = await gateway.invoke(
      toolReturning('throws_late', () => ({
        ok: true,
        x: {
          toJSON() {
            throw new Error(`upstream rejected key ${secret} reading /srv/secret-app/config.json`);
          },
        },
      })),
      {},
    );
    expect(result).toMatchObject({ ok: false, error_type: 'tool_error' });
    expect(JSON.stringify(result)).not.toMatch(/sk-live|\/srv\/secret-app/);
  });

  it('the token of a "Bearer <token>" header is redacted on its own', () => {
    registerSecret('Bearer tok-A2A-0123456789');
    expect(redactSecrets('{"error":"invalid token tok-A2A-0123456789"}')).not.toContain('tok-A2A');
  });

  it('a preview or a line range never ends inside a credential, and saved files hold none', async () => {
    const gateway = createToolGateway({
      approvalMode: 'full',
      env: { AGENTENGINE_UI_DIR: dir },
      budget: { maxChars: 1000, previewChars: 30 },
    });
    const text = `${'a'.repeat(20)}${secret}${'b'.repeat(2000)}`;
    const result = await gateway.invoke(
      toolReturning('leaky', () => ({ ok: true, text })),
      {},
    );
    expect(JSON.stringify(result)).not.toMatch(/sk-live-ATT/);
    const root = path.join(dir, 'ws');
    await mkdir(root);
    await writeFile(path.join(root, 'env.txt'), text);
    const { tools } = createWorkspaceToolset({ root, useRipgrep: false });
    const read = tools.find((tool) => tool.name === 'read_workspace_file')!;
    const cut = await gateway.invoke(read, {
      path: 'env.txt',
      max_chars: 1000,
      include_line_numbers: false,
    });
    expect(JSON.stringify(cut)).not.toMatch(/sk-live-ATT/);
  });

  it('keeps redacting past 10,000 registered credentials (the newest 100,000 are kept)', () => {
    for (let index = 0; index < 10_050; index += 1) registerSecret(`tenant-${index}-api-key-XYZ`);
    expect(redactSecrets('key tenant-10049-api-key-XYZ')).toBe('key [REDACTED]');
    expect(redactSecrets('key tenant-0-api-key-XYZ')).toBe('key [REDACTED]');
  });

  it('URL passwords holding @, / or ? and overlapping secrets leave nothing behind', () => {
    expect(redactSecrets('https://bob:p@ss@db.internal/x')).toBe(
      'https://bob:[REDACTED]@db.internal/x',
    );
    expect(redactSecrets('postgres://u:a/b?c@h:5432/db')).toBe('postgres://u:[REDACTED]@h:5432/db');
    registerSecret('abcdEF');
    registerSecret('EFGHIJKLMNOP-long-token');
    expect(redactSecrets('x abcdEFGHIJKLMNOP-long-token y')).toBe('x [REDACTED] y');
  });

  it('an Error inside a result is shown as a model-safe message (no host path)', async () => {
    const gateway = createToolGateway({ approvalMode: 'full', env: {} });
    const result = await gateway.invoke(
      toolReturning('with_error', () => ({
        ok: false,
        error_type: 'x',
        cause: new Error("ENOENT open '/srv/private/data x/y.json'"),
      })),
      {},
    );
    expect(JSON.stringify(result)).not.toContain('/srv/private');
  });
});

describe('a grant binds exactly the arguments the tool receives', () => {
  const received: unknown[] = [];
  const external = defineJsonSchemaTool({
    name: 'pay',
    description: 'Pays.',
    inputSchema: { type: 'object' },
    policy: { riskLevel: 'high', sideEffects: ['payment'] },
    execute: (input) => {
      received.push(input);
      return { ok: true };
    },
  });

  it('non-finite numbers are refused and -0 is not 0', async () => {
    const gateway = createToolGateway({ env: {} });
    for (const raw of ['{"amount":1e400}', '{"amount":-1e400}']) {
      expect(await gateway.invoke(external, raw)).toMatchObject({
        error_type: 'invalid_arguments',
      });
    }
    expect(canonicalDigest({ amount: -0 })).not.toBe(canonicalDigest({ amount: 0 }));
  });

  it('getters and toJSON in objects an adapter hands over cannot change what runs', async () => {
    const gateway = createToolGateway({ env: {} });
    const first = await gateway.invoke(external, { amount: 2 });
    if (!isApprovalRequired(first)) throw new Error('expected approval_required');
    const grant = await gateway.approve(first.approval_request.id);
    let reads = 0;
    const shifty = {
      get amount() {
        reads += 1;
        return reads > 2 ? 9999 : 2;
      },
    };
    const result = await gateway.invoke(external, shifty, { approval: grant });
    expect(result).toMatchObject({ ok: true });
    expect(received).toEqual([{ amount: 2 }]);
    expect(
      await gateway.invoke(external, { note: { toJSON: () => 'hi', wire_to: 'x' } }),
    ).toMatchObject({ error_type: 'invalid_arguments' });
  });
});

describe('replies and results stay bounded', () => {
  it('invalid_arguments replies echo little, however large the bad keys are', async () => {
    const gateway = createToolGateway({ approvalMode: 'full', env: {} });
    const strict = defineTool({
      name: 'strict',
      description: 'Strict.',
      input: z.strictObject({ a: z.string().optional() }),
      execute: () => ({ ok: true }),
    });
    const args = Object.fromEntries(
      Array.from({ length: 30 }, (_, index) => [`${index}${'k'.repeat(100_000)}`, 1]),
    );
    const result = await gateway.invoke(strict, args);
    expect(result).toMatchObject({ ok: false, error_type: 'invalid_arguments' });
    expect(JSON.stringify(result).length).toBeLessThan(10_000);
  });

  it('a result of shared references 40 deep is refused at once, not serialised for minutes', async () => {
    let node: Record<string, unknown> = { leaf: 'x' };
    for (let level = 0; level < 40; level += 1) node = { a: node, b: node };
    const gateway = createToolGateway({ approvalMode: 'full', env: { AGENTENGINE_UI_DIR: dir } });
    const started = Date.now();
    const result = await gateway.invoke(
      toolReturning('dag', () => ({ ok: true, node })),
      {},
    );
    expect(result).toMatchObject({ ok: false, error_type: 'result_too_large' });
    expect(Date.now() - started).toBeLessThan(5_000);
  });

  it('invoke with null options resolves', async () => {
    const gateway = createToolGateway({ approvalMode: 'full', env: {} });
    const tool = toolReturning('fine', () => ({ ok: true }));
    expect(await gateway.invoke(tool, {}, null as never)).toMatchObject({ ok: true });
  });

  it('echoed ids lose control, bidi and zero-width characters', () => {
    expect(echoValue('a\u0085b\u009bc\u202ed\u200be\u2066f')).toBe('a b c d e f');
  });
});
