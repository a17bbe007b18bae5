import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadLocalSkills } from './local-skills.js';
import { matchSkills } from './skill-matching.js';
import { validateSkill } from './validate-skill.js';

// The Agent Skills reference validator's own test cases (agentskills/agentskills, skills-ref,
// tests/test_validator.py), as data: the folder, its SKILL.md (or skill.md), and what the
// reference says — valid, or the problem it names. Our wording differs; the verdicts do not.

interface Case {
  readonly test: string;
  readonly folder: string;
  readonly frontmatter?: string;
  /** `skill.md` instead of `SKILL.md`. */
  readonly lowerCaseFile?: boolean;
  /** `undefined`: valid. */
  readonly problem?: RegExp;
}

const CASES: readonly Case[] = [
  {
    test: 'test_valid_skill',
    folder: 'my-skill',
    frontmatter: 'name: my-skill\ndescription: A test skill',
  },
  { test: 'test_missing_skill_md', folder: 'no-file', problem: /SKILL\.md not found/ },
  {
    test: 'test_invalid_name_uppercase',
    folder: 'MySkill',
    frontmatter: 'name: MySkill\ndescription: A test skill',
    problem: /lower case/,
  },
  {
    test: 'test_name_too_long',
    folder: 'a'.repeat(70),
    frontmatter: `name: ${'a'.repeat(70)}\ndescription: A test skill`,
    problem: /longer than 64 characters/,
  },
  {
    test: 'test_name_leading_hyphen',
    folder: '-my-skill',
    frontmatter: 'name: -my-skill\ndescription: A test skill',
    problem: /start or end with a hyphen/,
  },
  {
    test: 'test_name_consecutive_hyphens',
    folder: 'my--skill',
    frontmatter: 'name: my--skill\ndescription: A test skill',
    problem: /consecutive hyphens/,
  },
  {
    test: 'test_name_invalid_characters',
    folder: 'my_skill',
    frontmatter: 'name: my_skill\ndescription: A test skill',
    problem: /other than letters, digits and hyphens/,
  },
  {
    test: 'test_name_directory_mismatch',
    folder: 'wrong-name',
    frontmatter: 'name: correct-name\ndescription: A test skill',
    problem: /differs from its directory/,
  },
  {
    test: 'test_unexpected_fields',
    folder: 'extra-field',
    frontmatter: 'name: extra-field\ndescription: A test skill\nunknown_field: should not be here',
    problem: /unknown frontmatter field "unknown_field"/,
  },
  {
    test: 'test_valid_with_all_fields',
    folder: 'all-fields',
    frontmatter:
      'name: all-fields\ndescription: A test skill\nlicense: MIT\nmetadata:\n  author: Test',
  },
  {
    test: 'test_allowed_tools_accepted',
    folder: 'tools-string',
    frontmatter:
      'name: tools-string\ndescription: A test skill\nallowed-tools: Bash(jq:*) Bash(git:*)',
  },
  {
    test: 'test_allowed_tools_inline_list_accepted',
    folder: 'tools-inline',
    frontmatter:
      'name: tools-inline\ndescription: A test skill\nallowed-tools: [Read, Write, Edit, Bash]',
  },
  {
    test: 'test_allowed_tools_block_list_accepted',
    folder: 'tools-block',
    frontmatter:
      'name: tools-block\ndescription: A test skill\nallowed-tools:\n  - Read\n  - Bash\n  - Grep',
  },
  {
    test: 'test_allowed_tools_list_items_must_be_strings',
    folder: 'tools-number',
    frontmatter: 'name: tools-number\ndescription: A test skill\nallowed-tools:\n  - Read\n  - 123',
    problem: /list items must all be strings/,
  },
  {
    test: 'test_allowed_tools_invalid_scalar_type_rejected',
    folder: 'tools-scalar',
    frontmatter: 'name: tools-scalar\ndescription: A test skill\nallowed-tools: 123',
    problem: /a string or a list of strings/,
  },
  {
    test: 'test_i18n_chinese_name',
    folder: '技能',
    frontmatter: 'name: 技能\ndescription: A skill with Chinese name',
  },
  {
    test: 'test_i18n_russian_name_with_hyphens',
    folder: 'мой-навык',
    frontmatter: 'name: мой-навык\ndescription: A skill with Russian name',
  },
  {
    test: 'test_i18n_russian_lowercase_valid',
    folder: 'навык',
    frontmatter: 'name: навык\ndescription: A skill with Russian lowercase name',
  },
  {
    test: 'test_i18n_russian_uppercase_rejected',
    folder: 'НАВЫК',
    frontmatter: 'name: НАВЫК\ndescription: A skill with Russian uppercase name',
    problem: /lower case/,
  },
  {
    test: 'test_description_too_long',
    folder: 'long-description',
    frontmatter: `name: long-description\ndescription: ${'x'.repeat(1100)}`,
    problem: /longer than 1024/,
  },
  {
    test: 'test_valid_compatibility',
    folder: 'compat',
    frontmatter: 'name: compat\ndescription: A test skill\ncompatibility: Requires Python 3.11+',
  },
  {
    test: 'test_compatibility_too_long',
    folder: 'compat-long',
    frontmatter: `name: compat-long\ndescription: A test skill\ncompatibility: ${'x'.repeat(550)}`,
    problem: /longer than 500/,
  },
  // The folder composed ("café"), the name decomposed ("cafe" + U+0301): equal after NFKC.
  {
    test: 'test_nfkc_normalization',
    folder: 'caf\u00e9',
    frontmatter: 'name: cafe\u0301\ndescription: A test skill',
  },
  // find_skill_md accepts a lower-case skill.md.
  {
    test: 'skill.md in lower case',
    folder: 'lower-file',
    lowerCaseFile: true,
    frontmatter: 'name: lower-file\ndescription: A test skill',
  },
];

let base: string;
beforeAll(async () => {
  base = await mkdtemp(path.join(os.tmpdir(), 'ksadk-skills-ref-'));
  for (const item of CASES) {
    const dir = path.join(base, item.folder);
    await mkdir(dir, { recursive: true });
    if (item.frontmatter !== undefined)
      await writeFile(
        path.join(dir, item.lowerCaseFile ? 'skill.md' : 'SKILL.md'),
        `---\n${item.frontmatter}\n---\nBody\n`,
      );
  }
});
afterAll(async () => {
  await rm(base, { recursive: true, force: true });
});

describe('the Agent Skills reference validator test cases', () => {
  it.each(CASES.map((item) => [item.test, item] as const))('%s', async (_test, item) => {
    const { ok, problems } = await validateSkill(path.join(base, item.folder));
    if (item.problem === undefined) expect({ ok, problems }).toEqual({ ok: true, problems: [] });
    else {
      expect(ok).toBe(false);
      expect(problems.join('\n')).toMatch(item.problem);
    }
  });

  it('a SKILL.md that is a FIFO, a link or too large is refused at once, never read', {
    timeout: 10_000,
  }, async () => {
    const { execFileSync } = await import('node:child_process');
    const { symlink, truncate } = await import('node:fs/promises');
    const hostile = await mkdtemp(path.join(os.tmpdir(), 'ksadk-skills-hostile-'));
    try {
      for (const name of ['fifo', 'link', 'huge']) await mkdir(path.join(hostile, name));
      execFileSync('mkfifo', [path.join(hostile, 'fifo', 'SKILL.md')]);
      await symlink('/etc/passwd', path.join(hostile, 'link', 'SKILL.md'));
      await writeFile(path.join(hostile, 'huge', 'SKILL.md'), '');
      await truncate(path.join(hostile, 'huge', 'SKILL.md'), 50 * 1024 * 1024);
      expect(await validateSkill(path.join(hostile, 'fifo'))).toEqual({
        ok: false,
        problems: ['SKILL.md is not a regular file'],
      });
      expect((await validateSkill(path.join(hostile, 'link'))).problems).toEqual([
        'SKILL.md is not a regular file',
      ]);
      expect((await validateSkill(path.join(hostile, 'huge'))).problems[0]).toMatch(/larger than/);
    } finally {
      await rm(hostile, { recursive: true, force: true });
    }
  });

  it('skills named in other scripts load, are found by search and by their exact name', async () => {
    const { skills } = await loadLocalSkills(base);
    const names = skills.map((skill) => skill.name);
    // (`навык` and `НАВЫК` are one name case-insensitively: the first folder by name wins.)
    expect(names).toEqual(expect.arrayContaining(['技能', 'мой-навык', 'café', 'lower-file']));
    const chinese = matchSkills(skills, '请用技能处理这个文件');
    expect(chinese[0]?.skill.name).toBe('技能');
    const russian = matchSkills(skills, 'запусти мой-навык сейчас');
    expect(russian[0]?.skill.name).toBe('мой-навык');
    // Asked for in the other normal form, the name still matches.
    expect(
      matchSkills(skills, '', { names: ['cafe\u0301'] }).map((match) => match.skill.name),
    ).toEqual(['café']);
  });
});

describe('skills named in other scripts from the Skill Service', () => {
  it('are listed, found by search, loaded and cached apart', async () => {
    const { startSkillServiceTestServer } = await import('../testing/skill-service.js');
    const { createSkillToolset } = await import('./tools/index.js');
    const { createToolGateway } = await import('../gateway/create-tool-gateway.js');
    const md = (name: string, description: string) =>
      `---\nname: ${name}\ndescription: ${description}\n---\nSteps.\n`;
    const service = await startSkillServiceTestServer({
      spaces: [
        {
          id: 'team',
          skills: [
            {
              name: '技能',
              description: '处理文件的技能',
              files: { 'SKILL.md': md('技能', '处理文件的技能') },
            },
            {
              name: '技巧',
              description: '另一个技巧',
              files: { 'SKILL.md': md('技巧', '另一个技巧') },
            },
            {
              name: 'мой-навык',
              description: 'Русский навык',
              files: { 'SKILL.md': md('мой-навык', 'Русский навык') },
            },
          ],
        },
      ],
    });
    try {
      const toolset = await createSkillToolset({
        env: {
          PATH: process.env['PATH'],
          KSADK_SKILL_SERVICE_URL: service.url,
          KSADK_SKILL_SPACE_IDS: 'team',
          KSADK_SKILL_CACHE_DIR: path.join(base, 'remote-cache'),
          AGENTENGINE_UI_DIR: path.join(base, 'remote-ui'),
        },
        runtime: false,
      });
      const gateway = createToolGateway({ env: {} });
      const tool = (name: string) => toolset.tools.find((candidate) => candidate.name === name)!;
      const listed = await gateway.invoke(tool('list_skills'), { space_id: 'team' });
      expect(JSON.stringify(listed)).toContain('мой-навык');
      const found = await gateway.invoke(tool('search_skills'), {
        query: '请用技能处理文件',
        space_id: 'team',
      });
      expect((found['results'] as { name: string }[])[0]?.name).toBe('技能');
      for (const name of ['技能', '技巧', 'мой-навык']) {
        const loaded = await gateway.invoke(tool('load_skill'), {
          skill_name: name,
          space_id: 'team',
        });
        expect(loaded, name).toMatchObject({
          ok: true,
          name,
          verified: true,
          instructions: 'Steps.\n',
        });
      }
      // Two names that share no ASCII have cache folders of their own (the key is injective).
      const { readdir } = await import('node:fs/promises');
      expect(
        (await readdir(path.join(base, 'remote-cache'))).filter((entry) => !entry.startsWith('.')),
      ).toHaveLength(3);
    } finally {
      await service.close();
    }
  });
});
