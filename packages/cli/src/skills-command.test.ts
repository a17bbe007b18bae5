import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdir, mkdtemp, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { startSkillServiceTestServer } from '@ksadk/core/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ksadk } from './test-fixtures/run-ksadk.js';

let dir: string;
let skills: string;

/** A skill folder with a SKILL.md and files. */
async function skill(name: string, frontmatter: string, files: Record<string, string> = {}) {
  const root = path.join(skills, name);
  await mkdir(root, { recursive: true });
  await writeFile(
    path.join(root, 'SKILL.md'),
    `---\n${frontmatter}\n---\n# ${name}\n\nDo the thing.\n`,
  );
  for (const [file, text] of Object.entries(files)) {
    await mkdir(path.dirname(path.join(root, file)), { recursive: true });
    await writeFile(path.join(root, file), text);
  }
  return root;
}

beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'ksadk-cli-skills-'));
  skills = path.join(dir, 'skills');
  await skill(
    'report',
    'name: report\ndescription: Write a weekly report from the notes.\nlicense: Apache-2.0',
    {
      'scripts/run-workflow.sh': 'echo report\n',
      'references/style.md': '# Style\n',
    },
  );
  await skill(
    'pdf-forms',
    'name: pdf-forms\ndescription: Fill PDF forms.\nmetadata:\n  version: "2"',
  );
  await skill(
    'Bad_Skill',
    'name: other-name\ndescription: Does things.\nowner: someone\nmetadata: [1, 2]',
  );
  await skill('empty-description', 'name: empty-description\ndescription: ""');
});
afterAll(() => rm(dir, { recursive: true, force: true }));

describe('ksadk skills', () => {
  it('validate: every problem on a line with its file and field, exit 1; a clean skill exit 0', async () => {
    const bad = await ksadk(['skills', 'validate', skills]);
    expect(bad.code).toBe(1);
    const file = path.join(skills, 'Bad_Skill', 'SKILL.md');
    const lines = bad.stdout.trim().split('\n');
    expect(lines).toContain(`✓ ${path.join(skills, 'pdf-forms')}`);
    expect(lines).toContain(`✓ ${path.join(skills, 'report')}`);
    expect(lines.filter((line) => line.startsWith(`✗ ${file}: `)).length).toBeGreaterThanOrEqual(3);
    expect(bad.stdout).toContain(`✗ ${file}: owner: unknown frontmatter field "owner"`);
    expect(bad.stdout).toMatch(
      new RegExp(`✗ ${file.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}: metadata: `),
    );
    expect(bad.stdout).toContain(
      `: name: name "other-name" differs from its directory "Bad_Skill"`,
    );
    expect(bad.stdout).toContain(
      `✗ ${path.join(skills, 'empty-description', 'SKILL.md')}: description: frontmatter has no description`,
    );
    const json = JSON.parse((await ksadk(['skills', 'validate', skills, '--json'])).stdout) as {
      ok: boolean;
      skills: {
        dir: string;
        ok: boolean;
        problems: { file: string; field?: string; message: string }[];
      }[];
    };
    expect(json.ok).toBe(false);
    expect(json.skills.find((entry) => entry.dir.endsWith('Bad_Skill'))!.problems).toEqual(
      expect.arrayContaining([
        { file, field: 'owner', message: 'unknown frontmatter field "owner"' },
      ]),
    );
    const good = await ksadk([
      'skills',
      'validate',
      path.join(skills, 'report'),
      path.join(skills, 'pdf-forms'),
    ]);
    expect(good.code).toBe(0);
    const missing = await ksadk(['skills', 'validate', path.join(dir, 'nowhere')]);
    expect(missing.code).toBe(1);
    expect(missing.stdout).toContain('SKILL.md not found');
  });

  it('list, search and show a local folder (JSON too); nothing configured is exit 1', async () => {
    const list = await ksadk(['skills', 'list', '--dir', skills, '--json']);
    const listed = JSON.parse(list.stdout) as {
      skills: { name: string; source: string }[];
      warnings: string[];
    };
    expect(listed.skills.map((entry) => entry.name)).toEqual(['other-name', 'pdf-forms', 'report']);
    expect(listed.warnings.join('\n')).toMatch(/empty-description/);
    const search = await ksadk(['skills', 'search', 'weekly report', '--dir', skills, '--json']);
    expect(search.code).toBe(0);
    expect((JSON.parse(search.stdout) as { matches: { name: string }[] }).matches[0]!.name).toBe(
      'report',
    );
    expect((await ksadk(['skills', 'search', 'zebra crossing', '--dir', skills])).code).toBe(1);
    const show = await ksadk(['skills', 'show', 'report', '--dir', skills]);
    expect(show.code).toBe(0);
    expect(show.stdout).toMatch(
      /^report local · local · verified\nWrite a weekly report from the notes\.\nresources: scripts\/run-workflow\.sh, references\/style\.md\n\n# report/,
    );
    expect((await ksadk(['skills', 'show', 'nothing-like-it', '--dir', skills])).code).toBe(1);
    // The default folder is ./skills: from a folder without one, nothing is configured.
    const none = await ksadk(['skills', 'list'], { cwd: path.join(skills, 'report') });
    expect(none.code).toBe(1);
    expect(none.stderr).toContain('No skills: none in the local skills folder');
  });

  it('list and show reach the configured skill spaces: a remote skill downloaded, verified by its sha256', {
    timeout: 60_000,
  }, async () => {
    const service = await startSkillServiceTestServer({
      spaces: [
        {
          id: 'team',
          name: 'Team skills',
          skills: [
            {
              name: 'weekly-digest',
              description: 'Summarise the week for the team.',
              files: {
                'SKILL.md':
                  '---\nname: weekly-digest\ndescription: Summarise the week for the team.\n---\nCollect, then summarise.\n',
              },
            },
          ],
        },
      ],
    });
    try {
      const env = {
        KSADK_SKILL_SERVICE_URL: service.url,
        KSADK_SKILL_SPACE_IDS: 'team',
        KSADK_SKILL_CACHE_DIR: path.join(dir, 'cache'),
      };
      const list = await ksadk(['skills', 'list', '--dir', skills, '--json'], { env });
      const listed = JSON.parse(list.stdout) as {
        skills: { name: string; source: string; space: string }[];
      };
      expect(listed.skills).toContainEqual(
        expect.objectContaining({ name: 'weekly-digest', source: 'remote', space: 'team' }),
      );
      const show = await ksadk(['skills', 'show', 'weekly-digest', '--dir', skills, '--json'], {
        env,
      });
      expect(show.code).toBe(0);
      expect(JSON.parse(show.stdout)).toMatchObject({
        name: 'weekly-digest',
        source: 'remote',
        verified: true,
      });
      expect(service.downloads).toHaveLength(1);
    } finally {
      await service.close();
    }
  });

  it('pack: a verified archive Info-ZIP can read, the same bytes every time, its sha256; symlinks and invalid skills refused', {
    timeout: 60_000,
  }, async () => {
    const out = path.join(dir, 'report.zip');
    const first = await ksadk([
      'skills',
      'pack',
      path.join(skills, 'report'),
      '--out',
      out,
      '--json',
    ]);
    expect(first.code).toBe(0);
    const packed = JSON.parse(first.stdout) as {
      archive: string;
      sha256: string;
      files: number;
      bytes: number;
    };
    const bytes = await readFile(out);
    expect(packed).toMatchObject({ archive: out, files: 3, bytes: bytes.length });
    expect(packed.sha256).toBe(createHash('sha256').update(bytes).digest('hex'));
    const listing = execFileSync('unzip', ['-l', out], { encoding: 'utf8' });
    expect(listing).toContain('report/SKILL.md');
    expect(listing).toContain('report/scripts/run-workflow.sh');
    const again = await ksadk([
      'skills',
      'pack',
      path.join(skills, 'report'),
      '--out',
      path.join(dir, 'again.zip'),
      '--json',
    ]);
    expect((JSON.parse(again.stdout) as { sha256: string }).sha256).toBe(packed.sha256);
    const shown = await ksadk([
      'skills',
      'pack',
      path.join(skills, 'report'),
      '--out',
      path.join(dir, 'shown.zip'),
    ]);
    expect(shown.stdout).toContain(`sha256 ${packed.sha256}`);

    await symlink('/etc/passwd', path.join(skills, 'pdf-forms', 'passwd'));
    const linked = await ksadk([
      'skills',
      'pack',
      path.join(skills, 'pdf-forms'),
      '--out',
      path.join(dir, 'pdf.zip'),
    ]);
    expect(linked.code).toBe(1);
    expect(linked.stdout).toContain('passwd: a symlink');
    const invalid = await ksadk([
      'skills',
      'pack',
      path.join(skills, 'Bad_Skill'),
      '--out',
      path.join(dir, 'bad.zip'),
    ]);
    expect(invalid.code).toBe(1);
    await expect(readFile(path.join(dir, 'bad.zip'))).rejects.toThrow();
  });
});
