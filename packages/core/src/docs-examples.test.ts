import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { parseMcpServerConfigs } from './mcp/mcp-config.js';
import { validateSkillMd } from './skills/skill-md.js';
import { parseSsrfPolicyJson } from './web/ssrf-policy.js';

// Every SKILL.md, JSON and configuration example a user may copy from the guides is checked the
// way KsADK will read it, as the TSDoc `@example` blocks are type-checked: a broken example
// (a SKILL.md whose `metadata` lost its indentation, say) fails here, not in a user's project.

const repo = fileURLToPath(new URL('../../..', import.meta.url));

interface Block {
  readonly file: string;
  readonly line: number;
  readonly lang: string;
  readonly text: string;
}

function blocksOf(file: string): Block[] {
  const lines = readFileSync(path.join(repo, file), 'utf8').split('\n');
  const blocks: Block[] = [];
  for (let index = 0; index < lines.length; index += 1) {
    const open = /^```(\w*)\s*$/.exec(lines[index]!);
    if (!open) continue;
    const start = index;
    const body: string[] = [];
    for (index += 1; index < lines.length && !/^```\s*$/.test(lines[index]!); index += 1)
      body.push(lines[index]!);
    blocks.push({ file, line: start + 1, lang: open[1]!, text: body.join('\n') });
  }
  return blocks;
}

const guides = [
  'README.md',
  ...readdirSync(path.join(repo, 'docs'))
    .filter((name) => name.endsWith('.md'))
    .map((name) => `docs/${name}`),
  ...readdirSync(path.join(repo, 'packages')).map((name) => `packages/${name}/README.md`),
].filter((file) => {
  try {
    readFileSync(path.join(repo, file));
    return true;
  } catch {
    return false;
  }
});
const blocks = guides.flatMap(blocksOf);
const where = (block: Block) => `${block.file}:${block.line}`;
const documented = new Set(
  readFileSync(path.join(repo, 'docs', 'configuration.md'), 'utf8').match(/\bKSADK_[A-Z0-9_]+\b/g),
);

describe('examples in the guides', () => {
  it('finds the examples (the scan itself works)', () => {
    expect(blocks.filter((block) => block.lang === 'json').length).toBeGreaterThanOrEqual(4);
    expect(blocks.some((block) => block.lang === 'markdown')).toBe(true);
  });

  it.each(
    blocks
      .filter((block) => block.lang === 'markdown' && block.text.startsWith('---'))
      .map((block) => [where(block), block] as const),
  )('the SKILL.md at %s is valid, strictly', (_where, block) => {
    const name = /^name:\s*(\S+)/m.exec(block.text)?.[1];
    expect(validateSkillMd(block.text, name ? { expectedName: name } : {})).toEqual({
      ok: true,
      problems: [],
    });
  });

  it.each(
    blocks.filter((block) => block.lang === 'json').map((block) => [where(block), block] as const),
  )('the JSON at %s parses, and as configuration it is valid', (_where, block) => {
    const value: unknown = JSON.parse(block.text);
    if (typeof value === 'object' && value !== null && 'mcpServers' in value)
      expect(parseMcpServerConfigs(value, where(block)).problems).toEqual([]);
    if (typeof value === 'object' && value !== null && 'allowed_hosts' in value)
      expect(parseSsrfPolicyJson(block.text).problems).toEqual([]);
  });

  it.each(
    blocks
      .filter((block) => block.lang === 'sh' && /^KSADK_/m.test(block.text))
      .map((block) => [where(block), block] as const),
  )('the environment at %s names documented variables only', (_where, block) => {
    const names = [...block.text.matchAll(/^(KSADK_[A-Z0-9_]+)=/gm)].map((match) => match[1]!);
    expect(names.length).toBeGreaterThan(0);
    expect(names.filter((name) => !documented.has(name))).toEqual([]);
  });
});
