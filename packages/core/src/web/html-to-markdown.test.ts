import { describe, expect, it } from 'vitest';
import { htmlToMarkdown } from './html-to-markdown.js';

const paragraph = 'Readable paragraph text that goes on for a while to look like an article. ';

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
});
