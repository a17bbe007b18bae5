import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createZip, type ZipEntrySpec } from '../testing/zip-writer.js';
import { extractSkillArchive } from './zip-extract.js';

let base: string;
beforeEach(async () => {
  base = await mkdtemp(path.join(os.tmpdir(), 'ksadk-zip-'));
});
afterEach(async () => {
  await rm(base, { recursive: true, force: true });
});

const skillMd = { name: 'demo/SKILL.md', data: '---\nname: demo\ndescription: Demo.\n---\n' };

async function extract(
  entries: ZipEntrySpec[],
  limits?: Parameters<typeof extractSkillArchive>[2],
) {
  const dest = path.join(base, 'staging', 'extracted');
  await mkdir(dest, { recursive: true });
  const archive = path.join(base, 'staging', 'archive.zip');
  await writeFile(archive, createZip(entries));
  return { run: () => extractSkillArchive(archive, dest, limits), dest };
}

/** Everything under `base` except the staging directory: what must stay untouched. */
async function outside(): Promise<string[]> {
  const entries = await readdir(base, { recursive: true });
  return entries.filter((entry) => !entry.startsWith('staging')).sort();
}

describe('extractSkillArchive', () => {
  it('extracts an ordinary archive and reports every file with its hash', async () => {
    const { run, dest } = await extract([
      skillMd,
      { name: 'demo/scripts/', data: '' },
      { name: 'demo/scripts/run-workflow.sh', data: 'echo hi', mode: 0o100755 },
    ]);
    const files = await run();
    expect(files.map((file) => file.path)).toEqual([
      'demo/SKILL.md',
      'demo/scripts/run-workflow.sh',
    ]);
    expect(files[1]!.sha256).toMatch(/^[0-9a-f]{64}$/);
    expect(await readFile(path.join(dest, 'demo/scripts/run-workflow.sh'), 'utf8')).toBe('echo hi');
  });

  const hostile: [string, ZipEntrySpec[], RegExp][] = [
    ['zip-slip ../', [skillMd, { name: '../escape.txt', data: 'x' }], /leaves the archive/],
    [
      'nested zip-slip',
      [skillMd, { name: 'demo/../../escape.txt', data: 'x' }],
      /leaves the archive/,
    ],
    ['absolute path', [skillMd, { name: '/tmp/escape.txt', data: 'x' }], /absolute/],
    ['drive letter', [skillMd, { name: 'C:/escape.txt', data: 'x' }], /absolute/],
    ['backslash', [skillMd, { name: 'demo\\..\\..\\escape.txt', data: 'x' }], /backslash/],
    ['symlink', [skillMd, { name: 'demo/link', data: '/etc/passwd', mode: 0o120777 }], /symlink/],
    [
      'hard link / unknown type',
      [skillMd, { name: 'demo/hard', data: 'x', mode: 0o110644 }],
      /link, device or special/,
    ],
    [
      'character device',
      [skillMd, { name: 'demo/dev', data: '', mode: 0o020644 }],
      /link, device or special/,
    ],
    ['FIFO', [skillMd, { name: 'demo/fifo', data: '', mode: 0o010644 }], /link, device or special/],
    [
      'duplicate names',
      [skillMd, { name: 'demo/a.txt', data: '1' }, { name: 'demo/a.txt', data: '2' }],
      /appears twice/,
    ],
    [
      'names differing only in case',
      [skillMd, { name: 'demo/A.txt', data: '1' }, { name: 'demo/a.txt', data: '2' }],
      /appears twice/,
    ],
    ['NUL in a name', [skillMd, { name: 'demo/a\0b', data: '1' }], /NUL/],
    [
      'file used as a directory',
      [skillMd, { name: 'demo/x', data: '1' }, { name: 'demo/x/y', data: '2' }],
      /inside a file/,
    ],
    [
      '1 GB declared size',
      [skillMd, { name: 'demo/big.bin', data: 'small', declaredSize: 1024 ** 3 }],
      /more than/,
    ],
    [
      '1000:1 compression ratio',
      [skillMd, { name: 'demo/zeros.bin', data: new Uint8Array(2_000_000) }],
      /compressed more than 100:1/,
    ],
  ];

  for (const [label, entries, message] of hostile) {
    it(`refuses ${label}, writing nothing outside its staging directory`, async () => {
      await writeFile(path.join(base, 'sentinel'), 'keep');
      const before = await outside();
      const { run } = await extract(entries);
      await expect(run()).rejects.toMatchObject({ errorType: 'unsafe_archive', message });
      expect(await outside()).toEqual(before);
      await expect(readFile(path.join(os.tmpdir(), 'escape.txt'))).rejects.toThrow();
    });
  }

  it('refuses 10,000 entries before reading any', async () => {
    const entries = Array.from({ length: 10_000 }, (_, index) => ({
      name: `demo/f${index}.txt`,
      data: '',
      store: true,
    }));
    const { run, dest } = await extract(entries);
    await expect(run()).rejects.toThrow(/10000 entries \(limit 5000\)/);
    expect(await readdir(dest)).toEqual([]);
  });

  it('refuses a body longer than its declared size while writing (sizes are checked)', async () => {
    const { run } = await extract([
      skillMd,
      { name: 'demo/liar.txt', data: 'x'.repeat(1000), declaredSize: 10, store: true },
    ]);
    await expect(run()).rejects.toMatchObject({ errorType: 'unsafe_archive' });
  });

  it('refuses a file that is not a zip, and honours configured limits', async () => {
    const archive = path.join(base, 'not.zip');
    await writeFile(archive, 'plain text');
    await mkdir(path.join(base, 'out'));
    await expect(extractSkillArchive(archive, path.join(base, 'out'))).rejects.toThrow(
      /not a readable zip/,
    );
    const { run } = await extract(
      [skillMd, { name: 'demo/a.txt', data: 'a'.repeat(2000), store: true }],
      { maxEntries: 10, maxTotalBytes: 1000, maxRatio: 100 },
    );
    await expect(run()).rejects.toThrow(/more than 1000 bytes/);
  });

  it('never writes through a link planted in the destination', async () => {
    const { run, dest } = await extract([skillMd, { name: 'demo/x.txt', data: 'payload' }]);
    await mkdir(path.join(dest, 'demo'));
    const target = path.join(base, 'victim.txt');
    await writeFile(target, 'original');
    const { symlink } = await import('node:fs/promises');
    await symlink(target, path.join(dest, 'demo', 'x.txt'));
    await expect(run()).rejects.toThrow(/cannot be created/);
    expect(await readFile(target, 'utf8')).toBe('original');
  });
});
