import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSkillPackageStore } from './package-store.js';
import type { SkillServiceClient } from './service-client.js';
import { createSkillLibrary } from './skill-library.js';

let base: string;
beforeAll(async () => {
  base = await mkdtemp(path.join(os.tmpdir(), 'ksadk-skill-library-'));
  const skill = path.join(base, 'skills', 'report');
  await mkdir(skill, { recursive: true });
  await writeFile(
    path.join(skill, 'SKILL.md'),
    '---\nname: report\ndescription: Reports.\n---\nx\n',
  );
});
afterAll(() => rm(base, { recursive: true, force: true }));

// A host path outside every registered folder, with a space in it: the sanitiser's hardest case.
const HOST_FILE = '/srv/app data/skill-cache/team/index.json';

/** A Skill Service client whose listing fails the way a broken cache or disk does. */
function failingClient(): SkillServiceClient {
  const fail = async (): Promise<never> => {
    throw new Error(`EACCES: permission denied, open '${HOST_FILE}'`);
  };
  return {
    baseUrl: 'http://127.0.0.1:9/api/v1',
    signed: false,
    listSpaces: fail,
    listSkills: fail,
    listPublicSkills: fail,
    downloadUrl: fail,
  } as unknown as SkillServiceClient;
}

describe('skill library warnings', () => {
  it('a space that fails to list is a warning that names no host path; local skills still list', async () => {
    const library = createSkillLibrary({
      localDir: path.join(base, 'skills'),
      service: {
        client: failingClient(),
        spaces: { user: ['team'], public: [], publicAllowlist: [] },
      },
      store: createSkillPackageStore({ cacheDir: path.join(base, 'cache dir') }),
    });
    const { entries, warnings } = await library.list();
    expect(entries.map((entry) => entry.name)).toEqual(['report']);
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatch(/^skill space team: EACCES: permission denied, open '<path>'$/);
    expect(JSON.stringify(warnings)).not.toMatch(/srv|app data|skill-cache|cache dir/);
  });
});
