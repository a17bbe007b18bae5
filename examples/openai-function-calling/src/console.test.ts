import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchBrowser } from '../../../test-support/browser.js';
import { runOpenAIExample } from './agent.js';
import type { ExampleReport } from './scenario.js';

// The OpenAI example with `--console`: every gated call waits for a person in the KsADK console,
// in a real headless Chromium.
let browser: Browser;
beforeAll(async () => {
  browser = await launchBrowser();
});
afterAll(() => browser?.close());

/**
 * Starts the example in console mode: the console's address, the report once the run is over
 * (the console stays up until `finish()`), and the run itself.
 */
async function startRun() {
  let ready!: (url: string) => void;
  const url = new Promise<string>((resolve) => {
    ready = resolve;
  });
  let ended!: (report: ExampleReport) => void;
  const report = new Promise<ExampleReport>((resolve) => {
    ended = resolve;
  });
  let finish!: () => void;
  const keepOpen = new Promise<void>((resolve) => {
    finish = resolve;
  });
  const run = runOpenAIExample({
    live: false,
    console: { onReady: ready, onRunEnd: ended, keepOpen, waitMs: 30_000 },
  });
  run.catch(() => undefined);
  return { url: await url, report, run, finish };
}

/** When the page's live updates connected. */
let liveAt = 0;

/**
 * Waits for the next request in the inbox, opens it, and says how long it took to show after it
 * was made (or, for one made before the page was live, after the page went live).
 */
async function nextRequest(page: Page, tool: string): Promise<number> {
  const row = page.locator('[data-testid=approval-row]', { hasText: tool });
  await row.waitFor({ timeout: 20_000 });
  const seenAt = Date.now();
  const id = await row.getAttribute('data-id');
  const created = await page.evaluate(async (requestId) => {
    const response = await fetch(`api/approvals/${requestId}`);
    return ((await response.json()) as { item: { created_at: string } }).item.created_at;
  }, id);
  await row.click();
  await page.locator('[data-testid=approval-detail] h2', { hasText: tool }).waitFor();
  return seenAt - Math.max(Date.parse(created), liveAt);
}

describe('the OpenAI example, decided in the console', () => {
  it('pauses; each request shows within a second; approve, edit then approve and reject reach the run', {
    timeout: 120_000,
  }, async () => {
    const { url, report: ended, run, finish } = await startRun();
    const page = await browser.newPage();
    const errors: string[] = [];
    page.on('pageerror', (error) => errors.push(error.message));
    await page.goto(url);
    await page.locator('header .badge', { hasText: 'live' }).waitFor();
    liveAt = Date.now();

    // edit_workspace_file: edited to a raincoat, then approved — the edited arguments run.
    expect(await nextRequest(page, 'edit_workspace_file')).toBeLessThan(1000);
    const detail = page.locator('[data-testid=approval-detail]');
    await expect(detail.textContent()).resolves.toContain('- pack: passport, umbrella');
    await page.click('[data-testid=edit]');
    const editor = page.locator('[data-testid=edit-args]');
    const edited = (await editor.inputValue()).replace('passport, umbrella', 'passport, raincoat');
    await editor.fill(edited);
    await page.click('[data-testid=show-diff]');
    await expect(page.locator('[data-testid=edit-diff] .added').textContent()).resolves.toContain(
      'raincoat',
    );
    await page.click('[data-testid=approve-edited]');

    // execute_skills: approved as it is.
    expect(await nextRequest(page, 'execute_skills')).toBeLessThan(1000);
    await page.click('[data-testid=approve]');

    // run_code, where bubblewrap can isolate it: rejected with a reason the model is told.
    const report = await Promise.race([
      ended,
      nextRequest(page, 'run_code').then(async (delay) => {
        expect(delay).toBeLessThan(1000);
        await page.fill('[data-testid=reject-reason]', 'no code today, please');
        await page.click('[data-testid=reject]');
        return ended;
      }),
    ]);
    expect(errors).toEqual([]);
    // The edited arguments ran, once.
    expect(report.notes).toBe('# Trip\n- pack: passport, raincoat\n');
    const transcript = report.transcript.join('\n');
    expect(transcript).toContain('skill run: ok, output/packing-list.md');
    if (report.ranCode) {
      expect(transcript).toMatch(/approval_rejected[\s\S]*no code today, please/);
      expect(transcript).not.toContain('code run: ok');
    }

    // The calls page: the edit ran once, succeeded, with its approval trail.
    await page.goto(`${url.split('?')[0]}#/calls`);
    const edits = page.locator('[data-testid=call-row]', { hasText: 'edit_workspace_file' });
    await edits.first().waitFor();
    expect(await edits.count()).toBe(1);
    await edits.first().click();
    const trail = page.locator('[data-testid=approval-trail]');
    await trail.waitFor();
    await expect(trail.textContent()).resolves.toMatch(
      /requested[\s\S]*approved \(edited\)[\s\S]*used/,
    );
    await expect(page.locator('[data-testid=call-detail]').textContent()).resolves.toContain(
      'raincoat',
    );
    await page.close();
    finish();
    await run;
  });
});
