import { describe, expect, it } from 'vitest';
import { watchLoop } from '../util/test-fixtures/watch-loop.js';
import { htmlToText } from './html-to-text.js';

describe('htmlToText (the fallback)', () => {
  it('strips tags, drops scripts, styles and comments, decodes entities, one line per block', async () => {
    const page = await htmlToText(
      `<!doctype html><html><head><title> The &amp; Title </title><style>p{color:red}</style>
<script type="x">if (a < b && c > d) leak("SCRIPT")</script></head><body>
<!-- a comment --><nav><a href="/">Home</a></nav><h1>Head&shy;line</h1>
<p>One <b>bold</b>   word&nbsp;and&#160;more &lt;tag&gt; &#x1F600; &#0; &bogus; caf&eacute;</p>
<noscript>NOSCRIPT</noscript><template><p>TEMPLATE</p></template><iframe>IFRAME</iframe>
<ul><li>one</li><li>two</li></ul>a < b<p title="x>y" data-q='>'>after quotes</p></body></html>`,
    );
    expect(page.title).toBe('The & Title');
    expect(page.text).toBe(
      [
        'Home',
        'Head&shy;line',
        'One bold word and more <tag> 😀 \ufffd &bogus; caf&eacute;',
        'one',
        'two',
        'a < b',
        'after quotes',
      ].join('\n'),
    );
  });

  it('drops everything after an unclosed script, comment, tag or quoted value', async () => {
    expect((await htmlToText('<p>kept</p><script>lost <p>lost')).text).toBe('kept');
    expect((await htmlToText('<p>kept</p><!-- lost <p>lost')).text).toBe('kept');
    expect((await htmlToText('<p>kept</p><a href="lost>lost')).text).toBe('kept');
    expect((await htmlToText('<p>kept</p><b lost')).text).toBe('kept');
    expect((await htmlToText('kept<!doctype lost')).text).toBe('kept');
    expect(await htmlToText('')).toEqual({ title: undefined, text: '' });
  });

  // Wall-clock bounds: retried, so a loaded machine's pause does not fail it; a quadratic
  // pass over 5 MB fails every attempt.
  it('is linear on adversarial inputs and never holds the event loop', {
    timeout: 180_000,
    retry: 2,
  }, async () => {
    const size = 5_000_000;
    const inputs = [
      '<'.repeat(size),
      '<a'.repeat(size / 2),
      '<!--'.repeat(size / 4),
      '<script>'.repeat(size / 8),
      '<script></script>'.repeat(size / 17),
      '&#1'.repeat(size / 3),
      `<p ${'a="x" '.repeat(size / 6)}>text</p>`,
      `<p>${'word '.repeat(size / 5)}</p>`,
      '<b>a</b>'.repeat(size / 8),
    ];
    for (const html of inputs) {
      const { maxGapMs, elapsedMs } = await watchLoop(() => htmlToText(html));
      const label = html.slice(0, 20);
      // Linear work on 5 MB takes well under a second; anything quadratic, hours. The bound leaves
      // room for a CI machine busy with other tests.
      expect(elapsedMs, label).toBeLessThan(15_000);
      expect(maxGapMs, label).toBeLessThan(250);
    }
  });
});
