import { availableParallelism } from 'node:os';
import { describe, expect, it, vi } from 'vitest';
import { convertInWorker, liveHtmlWorkers } from './html-worker-pool.js';

const article = (title: string, paragraphs: number): string =>
  `<html><head><title>${title}</title></head><body><article><h1>${title}</h1>${`<p>Readable article text with <a href="/link">a link</a>, long enough to look like prose. </p>\n`.repeat(paragraphs)}</article></body></html>`;

describe('convertInWorker', () => {
  it('keeps one thread for the next page', async () => {
    const first = await convertInWorker(article('One', 20), undefined, { deadlineMs: 10_000 });
    expect(first).toMatchObject({ ok: true, page: { extraction: 'readability', title: 'One' } });
    expect(liveHtmlWorkers()).toBe(1);
    const second = await convertInWorker(article('Two', 20), undefined, { deadlineMs: 10_000 });
    expect(second).toMatchObject({ ok: true, page: { title: 'Two' } });
    expect(liveHtmlWorkers()).toBe(1);
  });

  it('a thread reused for many pages collects no listeners', async () => {
    const warnings: string[] = [];
    const onWarning = (warning: Error): void => {
      warnings.push(warning.name);
    };
    process.on('warning', onWarning);
    try {
      for (let page = 0; page < 15; page += 1) {
        const outcome = await convertInWorker(article(`Page ${page}`, 3), undefined, {
          deadlineMs: 10_000,
        });
        expect(outcome).toMatchObject({ ok: true });
      }
      await new Promise((resolve) => setImmediate(resolve));
      expect(warnings).not.toContain('MaxListenersExceededWarning');
      expect(liveHtmlWorkers()).toBe(1);
    } finally {
      process.off('warning', onWarning);
    }
  });

  it('a thread that runs out of memory ends the call as failed, and the process lives on', {
    timeout: 20_000,
  }, async () => {
    const before = liveHtmlWorkers();
    const outcome = await convertInWorker(article('Big', 15_000), undefined, {
      deadlineMs: 15_000,
      resourceLimits: { maxOldGenerationSizeMb: 48 },
    });
    expect(outcome).toEqual({ ok: false, reason: 'failed', crashed: true });
    await vi.waitFor(() => expect(liveHtmlWorkers()).toBe(before), { timeout: 5_000 });
    // The shared thread is untouched.
    const after = await convertInWorker(article('After', 20), undefined, { deadlineMs: 10_000 });
    expect(after).toMatchObject({ ok: true, page: { title: 'After' } });
  });
  it('a burst of pages never starts more threads than the machine has cores (at least 2)', {
    timeout: 60_000,
  }, async () => {
    const cap = Math.max(2, availableParallelism());
    let peak = 0;
    const watch = setInterval(() => {
      peak = Math.max(peak, liveHtmlWorkers());
    }, 2);
    const page = `<html><body><article>${'<p>Some text for the page.</p>'.repeat(2_000)}</article></body></html>`;
    const outcomes = await Promise.all(
      Array.from({ length: 12 }, () => convertInWorker(page, undefined, { deadlineMs: 30_000 })),
    );
    clearInterval(watch);
    expect(outcomes.every((outcome) => outcome.ok)).toBe(true);
    // Busy threads plus the one kept idle.
    expect(peak).toBeLessThanOrEqual(cap + 1);
    await vi.waitFor(() => expect(liveHtmlWorkers()).toBeLessThanOrEqual(1), { timeout: 5_000 });
  });
});
