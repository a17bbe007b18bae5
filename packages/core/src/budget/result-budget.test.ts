import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import type { InvocationContext } from '../context/invocation-context.js';
import { runWithInvocationContext } from '../context/invocation-context.js';
import { createToolGateway } from '../gateway/create-tool-gateway.js';
import { defineTool } from '../tool/define-tool.js';
import {
  budgetTextFields,
  budgetToolOutput,
  narrowBudget,
  type ResultBudget,
  resolveResultBudget,
} from './result-budget.js';
import { resolveResultHandle } from './result-store.js';

/** The host file behind a handle, for the caller's context. */
const fileOf = async (
  budget: ResultBudget,
  handle: string,
  context: InvocationContext = {},
): Promise<string> => (await resolveResultHandle(handle, budget, context))!;

let root: string;
beforeEach(async () => {
  root = await mkdtemp(path.join(tmpdir(), 'ksadk-budget-'));
});
afterEach(async () => {
  await rm(root, { recursive: true, force: true });
});

describe('resolveResultBudget', () => {
  it('has the defaults of the Python KsADK', () => {
    const budget = resolveResultBudget({}, { AGENTENGINE_UI_DIR: root });
    expect(budget).toMatchObject({
      maxChars: 50_000,
      previewChars: 8_000,
      persistThresholdChars: 50_000,
    });
    // Outside the workspace: no other account's workspace tools can reach it.
    expect(budget.persistDir).toBe(path.join(root, 'tool-results'));
  });

  it('treats environment values as caps, never as loosening', () => {
    const env = {
      KSADK_TOOL_RESULT_MAX_CHARS: '100',
      KSADK_TOOL_RESULT_PREVIEW_CHARS: '50',
      AGENTENGINE_UI_DIR: root,
    };
    expect(resolveResultBudget({ maxChars: 1000 }, env)).toMatchObject({
      maxChars: 100,
      previewChars: 50,
    });
    expect(resolveResultBudget({ maxChars: 20, previewChars: 10 }, env)).toMatchObject({
      maxChars: 20,
      previewChars: 10,
    });
    // A value that is not a whole number is a configuration error naming the variable.
    for (const value of ['lots', '-5', '1.5'])
      expect(() => resolveResultBudget({}, { KSADK_TOOL_RESULT_MAX_CHARS: value })).toThrow(
        expect.objectContaining({
          code: 'invalid_config',
          message: expect.stringContaining('KSADK_TOOL_RESULT_MAX_CHARS'),
        }),
      );
  });

  it('narrows per tool to min(tool limit, global cap)', () => {
    const budget = resolveResultBudget(
      { maxChars: 100, previewChars: 40 },
      { AGENTENGINE_UI_DIR: root },
    );
    expect(narrowBudget(budget, { maxChars: 1000 })).toMatchObject({
      maxChars: 100,
      previewChars: 40,
    });
    expect(narrowBudget(budget, { maxChars: 30 })).toMatchObject({
      maxChars: 30,
      previewChars: 30,
      persistThresholdChars: 30,
    });
  });

  it('rejects negative limits', () => {
    expect(() => resolveResultBudget({ maxChars: -1 })).toThrowError(/non-negative/);
  });
});

describe('budgetToolOutput', () => {
  it('keeps short values whole', async () => {
    const budget = resolveResultBudget(
      { maxChars: 20, previewChars: 8, persistThresholdChars: 12 },
      { AGENTENGINE_UI_DIR: root },
    );
    expect(await budgetToolOutput('t', 'stdout', 'short', { budget })).toEqual({
      value: 'short',
      truncated: false,
      original_chars: 5,
      preview_chars: 5,
    });
  });

  it('persists long text in the account and session folder and returns a handle, never a host path', async () => {
    const budget = resolveResultBudget(
      { maxChars: 20, previewChars: 8, persistThresholdChars: 12 },
      { AGENTENGINE_UI_DIR: root },
    );
    const text = 'abcdefghijklmnopqrstuvwxyz';
    const out = await budgetToolOutput('run_command', 'stdout', text, {
      budget,
      metadata: { toolCallId: 'call_123' },
      context: { accountId: 'acme', sessionId: 's-1' },
    });
    expect(out).toMatchObject({
      value: 'abcdefgh',
      truncated: true,
      original_chars: 26,
      preview_chars: 8,
    });
    expect(out.persisted).toEqual({
      path: 'tool-results://call_123.stdout.txt',
      mime_type: 'text/plain',
    });
    const context = { accountId: 'acme', sessionId: 's-1' };
    const file = await fileOf(budget, out.persisted!.path, context);
    expect(file).toBe(path.join(root, 'tool-results', 'acme', '_', 's-1', 'call_123.stdout.txt'));
    expect(await readFile(file, 'utf8')).toBe(text);
  });

  it('persists JSON values as .json and never overwrites an earlier file', async () => {
    const budget = resolveResultBudget(
      { maxChars: 20, previewChars: 8, persistThresholdChars: 12 },
      { AGENTENGINE_UI_DIR: root },
    );
    const value = { items: Array.from({ length: 5 }, (_, i) => `item-${i}`) };
    const one = await budgetToolOutput('t', 'result', value, {
      budget,
      metadata: { toolCallId: 'same' },
    });
    const two = await budgetToolOutput(
      't',
      'result',
      { other: true, pad: 'x'.repeat(30) },
      { budget, metadata: { toolCallId: 'same' } },
    );
    expect(one.persisted).toMatchObject({ mime_type: 'application/json' });
    expect(one.persisted!.path).toMatch(/same\.result\.json$/);
    expect(two.persisted!.path).not.toBe(one.persisted!.path);
    expect(JSON.parse(await readFile(await fileOf(budget, one.persisted!.path), 'utf8'))).toEqual(
      value,
    );
  });

  it('sanitises hostile ids so files stay inside the directory', async () => {
    const budget = resolveResultBudget(
      { maxChars: 5, previewChars: 2 },
      { AGENTENGINE_UI_DIR: root },
    );
    const out = await budgetToolOutput('t', 'stdout', 'x'.repeat(10), {
      budget,
      metadata: { toolCallId: '../../etc/passwd' },
      context: { accountId: '../..', sessionId: '/abs' },
    });
    const full = await fileOf(budget, out.persisted!.path, {
      accountId: '../..',
      sessionId: '/abs',
    });
    expect(full.startsWith(path.join(root, 'tool-results') + path.sep)).toBe(true);
    expect(out.persisted!.path).toBe('tool-results://etc_passwd.stdout.txt');
  });

  it('never splits a surrogate pair', async () => {
    const budget = resolveResultBudget(
      { maxChars: 3, previewChars: 3 },
      { AGENTENGINE_UI_DIR: root },
    );
    const out = await budgetToolOutput('t', 'text', 'ab😀cd', { budget });
    expect(out.value).toBe('ab');
  });

  it('caps the persisted file size', async () => {
    const budget = resolveResultBudget(
      { maxChars: 5, previewChars: 2, maxPersistBytes: 10 },
      { AGENTENGINE_UI_DIR: root },
    );
    const out = await budgetToolOutput('t', 'text', 'y'.repeat(100), { budget });
    expect(out.persisted).toMatchObject({ file_truncated: true });
    expect((await readFile(await fileOf(budget, out.persisted!.path))).length).toBe(10);
  });
});

describe('budgetTextFields', () => {
  it('adds the per-field counters and persisted_outputs', async () => {
    const budget = resolveResultBudget(
      { maxChars: 20, previewChars: 8, persistThresholdChars: 12 },
      { AGENTENGINE_UI_DIR: root },
    );
    const out = await budgetTextFields(
      { ok: true, stdout: 'x'.repeat(26), stderr: 'fine', exit_code: 0 },
      'run',
      ['stdout', 'stderr', 'absent'],
      {
        budget,
        metadata: { toolCallId: 'c9' },
      },
    );
    expect(out).toMatchObject({
      ok: true,
      exit_code: 0,
      stdout: 'x'.repeat(8),
      stdout_truncated: true,
      stdout_original_chars: 26,
      stdout_preview_chars: 8,
      stderr: 'fine',
      stderr_truncated: false,
      persisted_outputs: {
        stdout: { path: 'tool-results://c9.stdout.txt', mime_type: 'text/plain' },
      },
    });
    expect(out).not.toHaveProperty('absent_truncated');
  });
});

describe('gateway budgeting', () => {
  it("budgets a tool's declared fields with min(tool limit, global cap), keyed by call id", async () => {
    const tool = defineTool({
      name: 'dump',
      description: 'Dumps.',
      input: z.object({ n: z.number() }),
      resultBudget: { fields: ['content'], maxChars: 10, previewChars: 4 },
      execute: ({ n }) => ({ ok: true, content: 'z'.repeat(n) }),
    });
    const gateway = createToolGateway({
      env: { AGENTENGINE_UI_DIR: root, KSADK_TOOL_RESULT_MAX_CHARS: '6' },
    });
    const result = await runWithInvocationContext({ accountId: 'a', sessionId: 's' }, () =>
      gateway.invoke(tool, { n: 50 }, { callId: 'call_7' }),
    );
    expect(result).toMatchObject({
      ok: true,
      content: 'zzzz',
      content_truncated: true,
      content_original_chars: 50,
    });
    expect(result['persisted_outputs']).toEqual({
      content: { path: 'tool-results://call_7.content.txt', mime_type: 'text/plain' },
    });
  });

  it('guards undeclared large results as a whole', async () => {
    const tool = defineTool({
      name: 'big',
      description: 'Big.',
      input: z.object({}),
      execute: () => ({
        ok: true,
        rows: Array.from({ length: 200 }, (_, i) => ({ i, text: 'row' })),
      }),
    });
    const gateway = createToolGateway({
      env: { AGENTENGINE_UI_DIR: root },
      budget: { maxChars: 200, previewChars: 50 },
    });
    // 200 rows of ~25 characters: well over 200 + the 2 000-character structure allowance.
    const result = await gateway.invoke(tool, {}, { callId: 'call_big' });
    expect(result).toMatchObject({ ok: true, result_truncated: true });
    expect((result['result_preview'] as string).length).toBe(50);
    const handle = (result['persisted_outputs'] as { result: { path: string } }).result.path;
    expect(
      JSON.parse(await readFile(await fileOf(gateway.budget, handle), 'utf8')).rows,
    ).toHaveLength(200);
  });
});
