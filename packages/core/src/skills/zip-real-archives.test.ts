import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { zipSync } from 'fflate';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { KsadkError } from '../errors/ksadk-error.js';
import { createToolGateway } from '../gateway/create-tool-gateway.js';
import {
  type SkillServiceTestServer,
  startSkillServiceTestServer,
} from '../testing/skill-service.js';
import { loadSkillDirectory } from './local-skills.js';
import { createSkillToolset } from './tools/index.js';
import { extractSkillArchive } from './zip-extract.js';

// Archives as the tools people use make them — Info-ZIP `zip`, 7-Zip, Python's zipfile, a Node
// writer, a GitHub zipball, one made on a Mac — not only as our own writer does. Each must load.

let base: string;
/** The skill every archive packs: a 1-byte file (stored by every tool), 64 KB of zeros (far over
 * 100:1), random bytes (stored: they do not compress), ordinary text (deflated). */
const FILES: Record<string, Buffer> = {
  'SKILL.md': Buffer.from(
    '---\nname: weekly-report\ndescription: Write the weekly report from numbers.\n---\nFollow references/style.md.\n',
  ),
  'references/one-byte.txt': Buffer.from('x'),
  'references/zeros.csv': Buffer.alloc(64 * 1024, '0'),
  'references/style.md': Buffer.from('Use short sentences.\n'.repeat(40)),
  'assets/noise.bin': randomBytes(2048),
  'scripts/run-workflow.sh': Buffer.from('#!/bin/sh\necho ok\n'),
};

const run = (program: string, args: string[], cwd: string): void => {
  execFileSync(program, args, { cwd, stdio: ['ignore', 'ignore', 'pipe'] });
};

/** Writes the skill's files under `dir`. */
async function writeSkill(dir: string): Promise<void> {
  for (const [name, data] of Object.entries(FILES)) {
    await mkdir(path.join(dir, path.dirname(name)), { recursive: true });
    await writeFile(path.join(dir, name), data);
  }
}

const PYTHON_ZIP = `
import sys, zipfile
out, method, root, junk = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4] == "1"
compression = zipfile.ZIP_STORED if method == "stored" else zipfile.ZIP_DEFLATED
import os
with zipfile.ZipFile(out, "w", compression) as archive:
    for folder, _, names in os.walk(root):
        for name in sorted(names):
            full = os.path.join(folder, name)
            archive.write(full, os.path.relpath(full, root))
    if junk:
        archive.writestr("__MACOSX/._SKILL.md", b"\\x00\\x05\\x16\\x07 mac resource fork")
        archive.writestr("__MACOSX/references/._style.md", b"\\x00\\x05\\x16\\x07")
        archive.writestr(".DS_Store", b"Bud1 mac folder settings")
        archive.writestr("references/.DS_Store", b"Bud1")
`;

/** Every archive, by how it was made. */
const archives = new Map<string, string>();

beforeAll(async () => {
  base = await mkdtemp(path.join(os.tmpdir(), 'ksadk-real-zips-'));
  const skill = path.join(base, 'src', 'weekly-report');
  await writeSkill(skill);
  // A GitHub zipball: everything under one top-level folder named <owner>-<repo>-<sha>.
  const zipball = path.join(base, 'zipball', 'acme-skills-3f2a9c1');
  await writeSkill(zipball);
  const out = (name: string) => {
    const file = path.join(base, `${name}.zip`);
    archives.set(name, file);
    return file;
  };
  run('zip', ['-q', '-r', '-X', out('info-zip'), '.'], skill);
  run('zip', ['-q', '-r', '-X', out('info-zip-folder'), 'weekly-report'], path.dirname(skill));
  run(
    'zip',
    ['-q', '-r', '-X', out('github-zipball'), 'acme-skills-3f2a9c1'],
    path.dirname(zipball),
  );
  run('7z', ['a', '-tzip', '-bd', '-bso0', out('7-zip'), '.'], skill);
  await writeFile(path.join(base, 'make.py'), PYTHON_ZIP);
  run('python3', [path.join(base, 'make.py'), out('python-stored'), 'stored', skill, '0'], base);
  run(
    'python3',
    [path.join(base, 'make.py'), out('python-deflated'), 'deflated', skill, '0'],
    base,
  );
  run('python3', [path.join(base, 'make.py'), out('made-on-a-mac'), 'deflated', skill, '1'], base);
  // A Node writer (fflate), levels mixed: stored for the 1-byte file, deflated for the rest.
  const entries: Record<string, [Uint8Array, { level: 0 | 6 }]> = {};
  for (const [name, data] of Object.entries(FILES))
    entries[name] = [data, { level: data.length < 16 ? 0 : 6 }];
  await writeFile(out('fflate'), zipSync(entries));
});
afterAll(async () => {
  await rm(base, { recursive: true, force: true });
});

describe('skill archives made by ordinary tools', () => {
  it.each([
    'info-zip',
    'info-zip-folder',
    'github-zipball',
    '7-zip',
    'python-stored',
    'python-deflated',
    'fflate',
    'made-on-a-mac',
  ])('a %s archive (stored and deflated entries) extracts and loads as a skill', async (name) => {
    const dest = path.join(base, 'out', name);
    const files = await extractSkillArchive(archives.get(name)!, dest);
    const paths = files.map((file) => file.path);
    // macOS junk is never extracted.
    expect(paths.join()).not.toMatch(/__MACOSX|\.DS_Store/);
    const prefix = paths.find((file) => file.endsWith('SKILL.md'))!.replace(/SKILL\.md$/, '');
    expect(paths.map((file) => file.slice(prefix.length)).sort()).toEqual(
      Object.keys(FILES).sort(),
    );
    for (const [file, data] of Object.entries(FILES))
      expect(Buffer.compare(await readFile(path.join(dest, prefix, file)), data), file).toBe(0);
    const loaded = await loadSkillDirectory(path.join(dest, prefix));
    expect(loaded).toMatchObject({ name: 'weekly-report', hasWorkflow: true });
  });

  it('the archives really hold stored entries and a >100:1 entry (what broke before)', () => {
    const listing = execFileSync('unzip', ['-v', archives.get('info-zip')!], { encoding: 'utf8' });
    expect(listing).toMatch(/\s1\s+Stored\s+1\s.*one-byte\.txt/);
    const zeros = listing.split('\n').find((line) => line.includes('zeros.csv'))!;
    const [size, , compressed] = zeros.trim().split(/\s+/);
    expect(Number(size) / Number(compressed)).toBeGreaterThan(100);
  });

  it('an Info-ZIP archive loads end to end through the Skill Service and load_skill', async () => {
    let service: SkillServiceTestServer | undefined;
    try {
      service = await startSkillServiceTestServer({
        spaces: [
          {
            id: 'team',
            skills: [
              {
                name: 'weekly-report',
                description: 'Write the weekly report from numbers.',
                archive: await readFile(archives.get('info-zip')!),
              },
            ],
          },
        ],
      });
      const toolset = await createSkillToolset({
        env: {
          PATH: process.env['PATH'],
          KSADK_SKILL_SERVICE_URL: service.url,
          KSADK_SKILL_SPACE_IDS: 'team',
          KSADK_SKILL_CACHE_DIR: path.join(base, 'cache'),
          AGENTENGINE_UI_DIR: path.join(base, 'ui'),
        },
        runtime: false,
      });
      const tool = toolset.tools.find((candidate) => candidate.name === 'load_skill')!;
      const loaded = await createToolGateway({ env: {} }).invoke(tool, {
        skill_name: 'weekly-report',
        space_id: 'team',
      });
      expect(loaded).toMatchObject({ ok: true, name: 'weekly-report', verified: true });
    } finally {
      await service?.close();
    }
  });

  it('a refused archive is a KsadkError with a documented code, and its error_type for the model', async () => {
    await writeFile(path.join(base, 'not-a-zip.zip'), 'plain text');
    const error = await extractSkillArchive(
      path.join(base, 'not-a-zip.zip'),
      path.join(base, 'out', 'refused'),
    ).then(
      () => undefined,
      (caught: unknown) => caught,
    );
    expect(KsadkError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({ code: 'invalid_package', errorType: 'unsafe_archive' });
  });
});
