import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  createInMemoryApprovalStore,
  createInMemoryCredentialStore,
  createToolGateway,
  defineTool,
  runWithInvocationContext,
} from '@ksadk/core';
import { loadMcpToolsets } from '@ksadk/core/mcp';
import { createSkillLibrary } from '@ksadk/core/skills';
import { startMcpTestServer } from '@ksadk/core/testing';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { launchBrowser } from '../../../test-support/browser.js';
import { serveKsadkConsole } from './index.js';
import {
  alice,
  callAs,
  drawChart,
  mallory,
  pendingAs,
  speak,
  testGateway,
  writeNote,
} from './test-fixtures/console-setup.js';

// The console in a real headless Chromium. Screenshots of each page go to screenshots/ (the docs
// show copies of them).
const here = path.dirname(fileURLToPath(import.meta.url));
const shots = path.join(here, '..', 'screenshots');
const skillsDir = path.join(here, 'test-fixtures', 'skills');

let browser: Browser;
beforeAll(async () => {
  browser = await launchBrowser();
  await mkdir(shots, { recursive: true });
});
afterAll(() => browser?.close());

/** A browser of its own for one principal (the host signs it in with the `x-test-user` header). */
async function signedIn(
  user: string,
): Promise<{ context: BrowserContext; page: Page; errors: string[] }> {
  const context = await browser.newContext({
    extraHTTPHeaders: { 'x-test-user': user },
    viewport: { width: 1280, height: 760 },
  });
  const page = await context.newPage();
  const errors: string[] = [];
  page.on('pageerror', (error) => errors.push(error.message));
  page.on('dialog', (dialog) => {
    errors.push(`dialog: ${dialog.message()}`);
    void dialog.dismiss();
  });
  return { context, page, errors };
}

const resolvePrincipal = (request: Request) => {
  const user = request.headers.get('x-test-user');
  if (!user) return undefined;
  if (user === 'admin') return { admin: true as const };
  const [accountId = '', userId] = user.split(':');
  return { accountId, ...(userId ? { userId } : {}) };
};

describe('the console in a browser', () => {
  it('renders what a model wrote as text: markup, script URLs, invisible characters, 5 MB; a second principal sees nothing of it', {
    timeout: 60_000,
  }, async () => {
    // Arguments of 5 MB pass the gateway's limit only when the host raises it.
    const { gateway, cleanup } = await testGateway({
      argumentLimits: { maxChars: 8 * 1024 * 1024 },
    });
    const served = await serveKsadkConsole({ gateway, tools: [writeNote], resolvePrincipal });
    const hostile = await pendingAs(gateway, alice, {
      path: '<img src=x onerror="window.__pwned=1">',
      text: '<script>window.__pwned=2</script> javascript:window.__pwned=3 \u202egnp.exe\u200b amount=100\u061c,9999 ok\u{E0049}\u{E0067}',
    });
    const huge = await pendingAs(gateway, alice, {
      path: 'big.md',
      text: 'x'.repeat(5 * 1024 * 1024),
    });
    const { context, page, errors } = await signedIn('acme:alice');
    try {
      await page.goto(`${served.url}#/approvals/${hostile}`);
      const detail = page.locator('[data-testid=approval-detail]');
      await detail.locator('h2', { hasText: 'write_note' }).waitFor();
      const text = (await detail.textContent()) ?? '';
      expect(text).toContain('<img src=x onerror=\\"window.__pwned=1\\">');
      expect(text).toContain('<script>window.__pwned=2</script>');
      // A right-to-left override cannot turn "exe.png" around: it shows as its escape.
      expect(text).toContain('\\u202egnp.exe\\u200b');
      // The Arabic letter mark cannot reorder digits; Unicode tags cannot hide words.
      expect(text).toContain('amount=100\\u061c,9999');
      expect(text).toContain('ok\\u{e0049}\\u{e0067}');
      expect(await detail.locator('img, script').count()).toBe(0);
      expect(
        await page.evaluate(() => (globalThis as { __pwned?: unknown }).__pwned),
      ).toBeUndefined();
      await page.screenshot({ path: path.join(shots, 'console-approval-hostile.png') });

      // 5 MB of argument: collapsed, and the page answers at once.
      const started = Date.now();
      await page.goto(`${served.url}#/approvals/${huge}`);
      const more = page.locator('button', { hasText: /Show all \(5,242,9\d\d characters\)/ });
      await more.waitFor();
      expect(Date.now() - started).toBeLessThan(5000);
      const shown = await page.locator('[data-testid=approval-detail] pre.json').textContent();
      expect(shown!.length).toBeLessThan(25_000);
      const clicked = Date.now();
      await page.click('[data-testid=edit]');
      await page.locator('[data-testid=too-large-to-edit]').waitFor();
      expect(Date.now() - clicked).toBeLessThan(1000);
      expect(errors).toEqual([]);

      // Mallory's browser: an empty inbox, and Alice's requests are "No such request".
      const other = await signedIn('evil:mallory');
      await other.page.goto(`${served.url}#/approvals/${hostile}`);
      await other.page
        .locator('[data-testid=approval-detail]', { hasText: 'No such request.' })
        .waitFor();
      await other.page.locator('.empty', { hasText: 'Nothing waiting for a decision.' }).waitFor();
      expect(await other.page.locator('[data-testid=approval-row]').count()).toBe(0);
      await other.page.goto(`${served.url}#/calls`);
      await other.page.locator('.empty', { hasText: 'No calls yet.' }).waitFor();
      await other.context.close();
    } finally {
      await context.close();
      await served.close();
      await cleanup();
    }
  });

  it('10,000 pending requests: first rows in under a second, only the visible ones in the page, the rest on scroll', {
    timeout: 120_000,
  }, async () => {
    const { cleanup } = await testGateway();
    const quotas = { maxRecords: 20_000, maxChars: 512 * 1024 * 1024 };
    const gateway = createToolGateway({
      env: {},
      approvalStore: createInMemoryApprovalStore({ perSession: quotas, perAccount: quotas }),
    });
    await runWithInvocationContext(alice, async () => {
      for (let index = 0; index < 10_000; index += 1)
        await gateway.invoke(
          writeNote,
          { path: `note-${index}.md`, text: `draft ${index}` },
          { callId: `c${index}` },
        );
    });
    const served = await serveKsadkConsole({ gateway, tools: [writeNote], resolvePrincipal });
    const { context, page, errors } = await signedIn('acme:alice');
    try {
      await page.goto(served.url);
      await page.locator('[data-testid=approval-row]').first().waitFor();
      // From the start of the navigation to the first rows drawn, as the browser timed it.
      const firstPaint = await page.evaluate(
        () => performance.getEntriesByName('ksadk:first-rows')[0]?.startTime ?? Number.NaN,
      );
      expect(firstPaint).toBeLessThan(1000);
      const rows = await page.locator('[data-testid=approval-row]').count();
      expect(rows).toBeGreaterThan(5);
      expect(rows).toBeLessThan(60);
      // Scrolling to the end loads the rest, a page at a time; the page keeps only what is in view.
      for (let round = 0; round < 60; round += 1) {
        const count = (await page.locator('[data-testid=approval-count]').textContent()) ?? '';
        if (count.startsWith('10,000 ')) break;
        await page.locator('.vlist').evaluate((list) => list.scrollTo(0, list.scrollHeight));
        await page.waitForTimeout(100);
      }
      await expect(page.locator('[data-testid=approval-count]').textContent()).resolves.toBe(
        '10,000 pending',
      );
      await page.locator('.vlist').evaluate((list) => list.scrollTo(0, list.scrollHeight));
      await page.waitForTimeout(100);
      expect(await page.locator('[data-testid=approval-row]').count()).toBeLessThan(60);
      await page.locator('[data-testid=approval-row]', { hasText: 'note-0.md' }).waitFor();
      expect(errors).toEqual([]);
    } finally {
      await context.close();
      await served.close();
      await cleanup();
    }
  });

  it('every page, with screenshots: inbox and edit, calls with saved outputs, skills, connected accounts, MCP servers', {
    timeout: 90_000,
  }, async () => {
    const weather = await startMcpTestServer({
      tools: [
        {
          name: 'city_weather',
          description: 'Weather forecast for a city.',
          inputSchema: {
            type: 'object',
            properties: { city: { type: 'string' }, days: { type: 'integer', minimum: 1 } },
            required: ['city'],
          },
          handler: () => ({ content: [{ type: 'text', text: 'rain' }] }),
        },
        {
          name: 'set_labels',
          description: 'Sets free-form labels.',
          inputSchema: {
            type: 'object',
            properties: { labels: { type: 'object', additionalProperties: { type: 'string' } } },
          },
          handler: () => ({ content: [{ type: 'text', text: 'ok' }] }),
        },
      ],
    });
    const mcp = await loadMcpToolsets([
      { name: 'weather', url: weather.url },
      {
        name: 'crashy',
        command: process.execPath,
        args: ['-e', "console.error('crashy: missing API_TOKEN'); process.exit(3)"],
      },
    ]);
    const { gateway: base, cleanup } = await testGateway();
    const gateway = createToolGateway({
      env: {},
      approvalMode: 'risk',
      budget: { persistDir: base.budget.persistDir },
      executions: { recordArguments: true },
      credentials: { store: createInMemoryCredentialStore(), key: 'k'.repeat(32) },
    });
    const tracker = defineTool({
      name: 'create_issue',
      description: 'Creates an issue in the tracker.',
      input: z.object({ title: z.string() }),
      credentials: [{ id: 'tracker', kind: 'api_key', description: 'Your issue tracker API key' }],
      execute: async ({ title }, context) => {
        const credential = await context.credential('tracker');
        return { ok: true, title, authenticated: credential.token.length > 0 };
      },
    });
    const served = await serveKsadkConsole({
      gateway,
      tools: [writeNote, drawChart, tracker],
      resolvePrincipal,
      skills: createSkillLibrary({ localDir: skillsDir }),
      mcpServers: [...mcp.toolsets, ...mcp.unavailable],
    });
    const { context, page, errors } = await signedIn('acme:alice');
    try {
      const id = await pendingAs(gateway, alice, {
        path: 'notes/trip.md',
        text: '- pack: passport, umbrella',
      });
      await pendingAs(gateway, alice, { path: 'notes/todo.md', text: '- book the train' });
      await callAs(gateway, alice, drawChart, { title: 'Rain in Oslo' }, 'chart-1');
      await callAs(gateway, alice, speak, { text: 'Bring an umbrella.' }, 'speak-1');
      await callAs(gateway, alice, tracker, { title: 'Umbrella broken' }, 'issue-1');
      await pendingAs(gateway, mallory);

      // The inbox, a request, and edit-then-approve with its diff.
      await page.goto(`${served.url}#/approvals/${id}`);
      await page.locator('[data-testid=approve]').waitFor();
      expect(await page.locator('[data-testid=approval-row]').count()).toBe(2);
      await page.screenshot({ path: path.join(shots, 'console-approvals.png') });
      await page.click('[data-testid=edit]');
      const editor = page.locator('[data-testid=edit-args]');
      await editor.fill((await editor.inputValue()).replace('umbrella', 'raincoat'));
      await page.click('[data-testid=show-diff]');
      await page.locator('[data-testid=edit-diff] .added').waitFor();
      await page.screenshot({ path: path.join(shots, 'console-edit-then-approve.png') });
      // A request arriving meanwhile (a live update) leaves the edit in progress alone.
      await pendingAs(gateway, alice, { path: 'notes/later.md', text: 'later' });
      await page.locator('[data-testid=approval-row]', { hasText: 'later' }).waitFor();
      expect(await editor.inputValue()).toContain('raincoat');
      await page.click('[data-testid=approve-edited]');
      await page
        .locator('[data-testid=decision-notice]', { hasText: 'Approved with your edit.' })
        .waitFor();
      expect((await gateway.approvalStatus(id, { principal: alice }))?.edited_arguments).toEqual({
        path: 'notes/trip.md',
        text: '- pack: passport, raincoat',
      });

      // Calls: the chart call with its saved image and result.
      await page.goto(`${served.url}#/calls`);
      const chart = page.locator('[data-testid=call-row]', { hasText: 'draw_chart' });
      await chart.click();
      await page.locator('[data-testid=output-image]').waitFor();
      // The arguments the model sent (the gateway records them here).
      await expect(page.locator('[data-testid=call-detail]').textContent()).resolves.toContain(
        '"title": "Rain in Oslo"',
      );
      expect(
        await page
          .locator('[data-testid=output-image]')
          .evaluate((image) => (image as unknown as { naturalWidth: number }).naturalWidth),
      ).toBe(1);
      await page.screenshot({ path: path.join(shots, 'console-calls.png') });

      // A sound the tool returned: an audio player reading the saved output.
      await page.locator('[data-testid=call-row]', { hasText: 'speak' }).click();
      const audio = page.locator('[data-testid=output-audio]');
      await audio.waitFor();
      const sound = await page.evaluate(
        async (src) => {
          const response = await fetch(src);
          return {
            type: response.headers.get('content-type'),
            size: (await response.arrayBuffer()).byteLength,
          };
        },
        (await audio.getAttribute('src'))!,
      );
      expect(sound).toEqual({ type: 'audio/wav', size: 44 });

      // Connected accounts: the sign-in the tracker call waits for, completed here, then revoked.
      await page.goto(`${served.url}#/accounts`);
      const signIn = page.locator('[data-testid=sign-ins] [data-testid=sign-in]');
      await signIn.waitFor();
      await page.screenshot({ path: path.join(shots, 'console-accounts-sign-in.png') });
      await signIn.locator('[data-testid=sign-in-answer]').fill('trk_live_123456789');
      await signIn.locator('button', { hasText: 'Complete sign-in' }).click();
      await page.locator('text=Connected. Run the call again.').waitFor();
      await page.goto(`${served.url}#/calls`);
      await page.goto(`${served.url}#/accounts`);
      await page.locator('[data-testid=credential-row]', { hasText: 'tracker' }).waitFor();
      expect(await page.locator('[data-testid=credentials]').textContent()).not.toContain(
        'trk_live',
      );
      await page.screenshot({ path: path.join(shots, 'console-accounts.png') });
      const ran = await callAs(gateway, alice, tracker, { title: 'Umbrella broken' }, 'issue-2');
      expect(ran).toMatchObject({ ok: true, authenticated: true });
      await page.click('[data-testid=revoke-credential]');
      await page.locator('.empty', { hasText: 'No connected accounts.' }).waitFor();

      // Skills: the catalogue with its problems; SKILL.md rendered, its markup and script link inert.
      await page.goto(`${served.url}#/skills/pdf-forms`);
      const markdown = page.locator('[data-testid=skill-markdown]');
      await markdown.locator('h1', { hasText: 'Filling PDF forms' }).waitFor();
      expect(await markdown.locator('table td').count()).toBe(4);
      expect(await markdown.locator('script, img').count()).toBe(0);
      expect(await markdown.locator('a[href^="javascript"]').count()).toBe(0);
      expect(await markdown.textContent()).toContain('<script>');
      await expect(page.locator('[data-testid=skill-list]').textContent()).resolves.toContain(
        'pdf-forms',
      );
      expect(
        await page.evaluate(() => (globalThis as { __pwned?: unknown }).__pwned),
      ).toBeUndefined();
      await page.screenshot({ path: path.join(shots, 'console-skills.png'), fullPage: false });

      // MCP servers: one connected with its tools and schemas, one that fails — its stderr is the
      // host's, shown to an operator, not to an account.
      await page.goto(`${served.url}#/mcp`);
      const failedForAlice = page.locator('[data-testid=mcp-server][data-name=crashy]');
      await failedForAlice.locator('.badge', { hasText: /failed|restarting/ }).waitFor();
      await expect(failedForAlice.textContent()).resolves.not.toContain('API_TOKEN');
      expect(errors).toEqual([]);
      const operator = await signedIn('admin');
      await operator.page.goto(`${served.url}#/mcp`);
      const connected = operator.page.locator('[data-testid=mcp-server][data-name=weather]');
      await connected.locator('.badge', { hasText: 'connected' }).waitFor();
      expect(await connected.locator('[data-testid=mcp-tool]').count()).toBe(2);
      await expect(connected.textContent()).resolves.toMatch(/no — /); // set_labels: not strict, and why
      const failed = operator.page.locator('[data-testid=mcp-server][data-name=crashy]');
      await failed.waitFor();
      await expect(failed.textContent()).resolves.toContain('crashy: missing API_TOKEN');
      await operator.page.screenshot({ path: path.join(shots, 'console-mcp.png'), fullPage: true });
      expect(operator.errors).toEqual([]);
      await operator.context.close();
    } finally {
      await context.close();
      await served.close();
      await mcp.close();
      await weather.close();
      await cleanup();
    }
  });
});
