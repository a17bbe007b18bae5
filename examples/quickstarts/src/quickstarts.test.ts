import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

const here = path.dirname(fileURLToPath(import.meta.url));
const repo = path.resolve(here, '../../..');
const run = promisify(execFile);

const quickstarts = [
  {
    file: 'langgraph.ts',
    doc: 'docs/langgraph.md',
    expect: ['sources: own builtin', 'approve? save_note', 'answer: Noted: pack an umbrella.'],
  },
  {
    file: 'adk.ts',
    doc: 'docs/adk.md',
    expect: ['sources: own builtin', 'approve? save_note', 'answer: Noted: pack an umbrella.'],
  },
  {
    file: 'ai-sdk.ts',
    doc: 'docs/ai-sdk.md',
    expect: ['sources: own builtin', 'approve? save_note', 'answer: Noted: pack an umbrella.'],
  },
  {
    file: 'openai-agents.ts',
    doc: 'docs/openai-agents.md',
    expect: ['sources: own builtin', 'approve? save_note', 'answer: Noted: pack an umbrella.'],
  },
  {
    file: 'anthropic.ts',
    doc: 'docs/anthropic.md',
    expect: [
      'sources: own builtin',
      'approve? save_note',
      'answer: Noted: pack an umbrella.',
      'requests sent: 2',
    ],
  },
  {
    file: 'openai.ts',
    doc: 'docs/openai.md',
    expect: [
      'sources: own builtin',
      'approve? save_note',
      'answer: Noted: pack an umbrella.',
      'requests sent: 2',
    ],
  },
];

describe('the guides’ quick starts', () => {
  for (const quickstart of quickstarts) {
    it(`${quickstart.doc} shows ${quickstart.file} exactly`, () => {
      const code = readFileSync(path.join(here, quickstart.file), 'utf8');
      const doc = readFileSync(path.join(repo, quickstart.doc), 'utf8');
      const marker = `<!-- quick start: examples/quickstarts/src/${quickstart.file} -->`;
      const start = doc.indexOf(marker);
      expect(start, `${quickstart.doc} has no ${marker}`).toBeGreaterThanOrEqual(0);
      const block = /```ts\n([\s\S]*?)```/.exec(doc.slice(start))?.[1];
      expect(block).toBe(code);
    });

    it(`${quickstart.file} runs offline and does what the guide says`, async () => {
      const { stdout } = await run(
        process.execPath,
        ['--import', 'tsx', path.join(here, quickstart.file)],
        {
          cwd: here,
          env: { PATH: process.env['PATH'] ?? '', HOME: process.env['HOME'] ?? '' },
          timeout: 60_000,
        },
      );
      for (const line of quickstart.expect) expect(stdout).toContain(line);
    }, 90_000);
  }
});
