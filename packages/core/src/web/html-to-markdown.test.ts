import { describe, expect, it, vi } from 'vitest';
import { watchLoop } from '../util/test-fixtures/watch-loop.js';
import { htmlToMarkdown } from './html-to-markdown.js';
import { liveHtmlWorkers } from './html-worker-pool.js';

const paragraph = 'Readable paragraph text that goes on for a while to look like an article. ';

/**
 * A ~5 MB page that is slow to convert: Readability's cost grows with text times nesting depth
 * (and linkedom's parse with depth squared). 60 levels over 5 MB of paragraphs took the
 * main-thread conversion 22 s on a two-core machine; a few thousand levels take hours.
 */
function hostilePage(depth = 60, bytes = 5_000_000): string {
  const head =
    '<!doctype html><html><head><title>Hostile &amp; slow</title><script>var SECRET = 1;</script></head><body><p>Visible start</p>';
  const filler = `<p>${'hostile filler words '.repeat(50)}</p>\n`;
  const tail = '<p>Visible end</p></body></html>';
  const count = Math.floor((bytes - head.length - tail.length) / filler.length);
  return head + '<div>'.repeat(depth) + filler.repeat(count) + tail;
}

describe('htmlToMarkdown', () => {
  it('gives the main content as markdown, scripts and navigation gone, links absolute', async () => {
    const html = `<!doctype html><html><head><title>The Title</title><script>var leaked = "SCRIPT-SECRET";</script><style>.x{color:red}</style></head>
<body><nav><a href="/home">Home</a> <a href="/about">About</a></nav>
<article><h1>The Title</h1><h2>Section</h2><p>${paragraph.repeat(12)}</p>
<p>See <a href="/docs/page">the docs</a>.</p><ul><li>one</li><li>two</li></ul>
<script>document.write("INLINE-SCRIPT")</script><img src="data:image/png;base64,AAAA" alt="pic"></article>
<noscript>NOSCRIPT-TEXT</noscript><footer>Footer links</footer></body></html>`;
    const page = await htmlToMarkdown(html, 'https://site.example/a/b');
    expect(page.extraction).toBe('readability');
    expect(page.fallbackReason).toBeUndefined();
    expect(page.title).toBe('The Title');
    expect(page.text).toContain('## Section');
    expect(page.text).toContain('[the docs](https://site.example/docs/page)');
    expect(page.text).toMatch(/^-\s+one$/m);
    expect(page.text).not.toMatch(/SCRIPT-SECRET|INLINE-SCRIPT|NOSCRIPT-TEXT|color:red|base64/);
  });

  it('falls back to the whole page text when there is no main content', async () => {
    const page = await htmlToMarkdown(
      '<html><head><title>T</title><script>alert("x")</script></head><body><style>p{}</style><div style="display:none">Hello &amp; <b>world</b></div><noscript>nope</noscript></body></html>',
    );
    expect(page.extraction).toBe('page_text');
    expect(page.text).toBe('Hello & world');
    expect(page.text).not.toMatch(/alert|nope|p\{\}/);
  });

  it('converts pages side by side', async () => {
    const pages = await Promise.all(
      ['One', 'Two', 'Three'].map((title) =>
        htmlToMarkdown(
          `<html><head><title>${title}</title></head><body><article><h1>${title}</h1><p>${paragraph.repeat(10)}</p></article></body></html>`,
        ),
      ),
    );
    expect(pages.map((page) => [page.extraction, page.title])).toEqual([
      ['readability', 'One'],
      ['readability', 'Two'],
      ['readability', 'Three'],
    ]);
  });

  it('a 5 MB hostile page never stalls the event loop: stopped at the deadline, stripped text instead', {
    timeout: 15_000,
  }, async () => {
    const html = hostilePage();
    const {
      value: page,
      maxGapMs,
      elapsedMs,
    } = await watchLoop(() => htmlToMarkdown(html, 'https://site.example/', { deadlineMs: 1_000 }));
    expect(maxGapMs).toBeLessThan(250);
    expect(elapsedMs).toBeLessThan(1_000 + 2_000);
    expect(page).toMatchObject({
      extraction: 'stripped_text',
      fallbackReason: 'deadline',
      title: 'Hostile & slow',
    });
    expect(page.text.startsWith('Visible start\nhostile filler words')).toBe(true);
    expect(page.text.endsWith('Visible end')).toBe(true);
    expect(page.text).not.toContain('SECRET');
  });

  it('an abort terminates the conversion thread and falls back at once', {
    timeout: 15_000,
  }, async () => {
    const controller = new AbortController();
    const pending = watchLoop(() =>
      htmlToMarkdown(hostilePage(), undefined, { deadlineMs: 60_000, signal: controller.signal }),
    );
    await vi.waitFor(() => expect(liveHtmlWorkers()).toBe(1), { timeout: 5_000 });
    const aborted = performance.now();
    controller.abort();
    const { value: page, maxGapMs } = await pending;
    expect(performance.now() - aborted).toBeLessThan(2_000);
    expect(maxGapMs).toBeLessThan(250);
    expect(page).toMatchObject({ extraction: 'stripped_text', fallbackReason: 'aborted' });
    expect(page.text).toContain('Visible end');
    // The busy thread is gone (not kept as the idle one).
    await vi.waitFor(() => expect(liveHtmlWorkers()).toBe(0), { timeout: 5_000 });
    // An already aborted signal never starts a thread.
    const early = await htmlToMarkdown('<p>a</p>', undefined, { signal: AbortSignal.abort() });
    expect(early).toMatchObject({
      extraction: 'stripped_text',
      fallbackReason: 'aborted',
      text: 'a',
    });
    expect(liveHtmlWorkers()).toBe(0);
  });

  it('refuses to parse a page of more than 250,000 nodes: stripped text, quickly', async () => {
    const {
      value: page,
      maxGapMs,
      elapsedMs,
    } = await watchLoop(() =>
      htmlToMarkdown(`<title>Many</title><p>start</p>${'<br>'.repeat(300_000)}<p>end</p>`),
    );
    expect(page).toMatchObject({ extraction: 'stripped_text', fallbackReason: 'too_large' });
    expect(page.title).toBe('Many');
    expect(page.text).toBe('start\nend');
    expect(maxGapMs).toBeLessThan(250);
    expect(elapsedMs).toBeLessThan(5_000);
  });
});
