// web_fetch of a 1 MB HTML page from a local server, against plain `fetch` + the same conversion
// (linkedom + Readability + turndown, via `htmlToMarkdown`). Interleaved rounds so machine noise
// hits both alike. What web_fetch adds: the SSRF check and pinned connection, the byte cap, the
// content-type check and result budgeting (the page's markdown is saved whole, a preview inline).
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { median } from './measure.mjs';

const ROUNDS = 9;
const PAGE_BYTES = 1_000_000;

/** A 1 MB article-like page: navigation, a long article of paragraphs and lists, scripts, a footer. */
function buildPage() {
  const paragraph =
    '<p>Readable article text with <a href="/link">a link</a>, <em>emphasis</em> and <code>code</code>, long enough to look like prose in a real page. </p>\n';
  const parts = [
    '<!doctype html><html><head><meta charset="utf-8"><title>Bench article</title>',
    '<script>window.analytics = { id: 1 };</script><style>body { font: 16px sans-serif }</style></head><body>',
    '<nav><a href="/">Home</a> <a href="/docs">Docs</a></nav><article><h1>Bench article</h1>',
  ];
  let size = parts.join('').length;
  let section = 0;
  while (size < PAGE_BYTES - 200) {
    const block =
      section % 10 === 0
        ? `<h2>Section ${section}</h2><ul><li>one</li><li>two</li></ul>\n`
        : paragraph;
    parts.push(block);
    size += block.length;
    section += 1;
  }
  parts.push('</article><footer>Footer</footer><script>track()</script></body></html>');
  return parts.join('');
}

/** Runs the web_fetch benchmark with the built package entries; returns rows and targets. */
export async function benchWebFetch({ core, web }) {
  const page = buildPage();
  const server = createServer((_request, response) => {
    response.setHeader('content-type', 'text/html; charset=utf-8');
    response.end(page);
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${server.address().port}/article`;
  const dir = await mkdtemp(path.join(os.tmpdir(), 'ksadk-bench-web-'));
  const toolset = web.createWebToolset({ ssrfPolicy: { allowedHosts: ['127.0.0.1'] } });
  const gateway = core.createToolGateway({
    approvalMode: 'full',
    env: { AGENTENGINE_UI_DIR: path.join(dir, 'ui') },
  });
  const ours = [];
  const plain = [];
  try {
    // Warm both paths (library load, JIT) before measuring.
    await web.htmlToMarkdown(await (await fetch(url)).text(), url);
    await gateway.invoke(toolset.webFetch, { url });
    for (let round = 0; round < ROUNDS; round += 1) {
      let started = performance.now();
      const response = await fetch(url);
      const converted = await web.htmlToMarkdown(await response.text(), url);
      plain.push(performance.now() - started);
      started = performance.now();
      const result = await gateway.invoke(toolset.webFetch, { url }, { callId: `bench_${round}` });
      ours.push(performance.now() - started);
      if (!result.ok || result.original_chars !== converted.text.length)
        throw new Error(
          `web_fetch disagreed with the baseline: ${JSON.stringify(result).slice(0, 300)}`,
        );
    }
  } finally {
    await toolset.close();
    await new Promise((resolve) => server.close(resolve));
    await rm(dir, { recursive: true, force: true });
  }
  const oursMs = median(ours);
  const plainMs = median(plain);
  const ratio = oursMs / plainMs;
  const mb = (Buffer.byteLength(page) / 1e6).toFixed(1);
  return {
    rows: [
      [
        `web_fetch through the gateway (${mb} MB HTML → markdown)`,
        oursMs.toFixed(0),
        `${ratio.toFixed(2)}×`,
      ],
      ['fetch + htmlToMarkdown (linkedom + Readability + turndown)', plainMs.toFixed(0), '1.00×'],
    ],
    targets: [
      [`web_fetch within 1.3× of fetch + the same conversion (${ratio.toFixed(2)}×)`, ratio <= 1.3],
    ],
  };
}
