import { createHash, randomBytes } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { lstat, mkdir, readdir, readFile, rename, rm } from 'node:fs/promises';
import path from 'node:path';
import { isSkillMdPath } from './skill-md.js';
import { SkillServiceError } from './skill-service-error.js';
import type { ExtractedFile } from './zip-extract.js';

/** What a cache entry records: the archive's hash, whether it verified, where the skill is, every file. */
export interface Manifest {
  version: 1;
  archive_sha256: string;
  verified: boolean;
  skill_root: string;
  files: ExtractedFile[];
}

/** The manifest's name in an entry. */
export const MANIFEST = 'manifest.json';
/** The downloaded archive's name in an entry. */
export const ARCHIVE = 'archive.zip';
/** The folder of an entry the archive is extracted into. */
export const EXTRACTED = 'extracted';

async function sha256File(file: string): Promise<string> {
  const hash = createHash('sha256');
  for await (const chunk of createReadStream(file)) hash.update(chunk as Buffer);
  return hash.digest('hex');
}

/** Every regular file under `dir`, relative with `/`; anything else (a link, a device) fails. */
async function listTree(dir: string, prefix = ''): Promise<string[] | undefined> {
  const out: string[] = [];
  for (const entry of await readdir(path.join(dir, prefix), { withFileTypes: true })) {
    const relative = prefix ? `${prefix}/${entry.name}` : entry.name;
    if (entry.isDirectory()) {
      const inner = await listTree(dir, relative);
      if (!inner) return undefined;
      out.push(...inner);
    } else if (entry.isFile()) out.push(relative);
    else return undefined;
  }
  return out;
}

/** Whether a cache entry is intact: the archive hash, and every extracted file as recorded, nothing more. */
export async function verifyEntry(
  entryDir: string,
  expected: string | undefined,
): Promise<Manifest | undefined> {
  try {
    const manifest = JSON.parse(await readFile(path.join(entryDir, MANIFEST), 'utf8')) as Manifest;
    if (manifest.version !== 1 || !Array.isArray(manifest.files)) return undefined;
    if (expected !== undefined && manifest.archive_sha256 !== expected) return undefined;
    if ((await sha256File(path.join(entryDir, ARCHIVE))) !== manifest.archive_sha256)
      return undefined;
    const extracted = path.join(entryDir, EXTRACTED);
    const present = await listTree(extracted);
    if (!present || present.length !== manifest.files.length) return undefined;
    const recorded = new Set(manifest.files.map((file) => file.path));
    if (present.some((file) => !recorded.has(file))) return undefined;
    for (const file of manifest.files)
      if ((await sha256File(path.join(extracted, ...file.path.split('/')))) !== file.sha256)
        return undefined;
    return manifest;
  } catch {
    return undefined;
  }
}

/** The directory holding the skill: `SKILL.md` at the top, else the shallowest, first by name. */
export function skillRootOf(files: readonly ExtractedFile[]): string {
  const candidates = files
    .map((file) => file.path)
    .filter(isSkillMdPath)
    .sort((a, b) => a.split('/').length - b.split('/').length || (a < b ? -1 : a > b ? 1 : 0));
  if (candidates.length === 0)
    throw new SkillServiceError('invalid_skill_package', 'the archive has no SKILL.md');
  return path.posix.dirname(candidates[0]!);
}

/** Creates the cache directory (owner only) and checks it is a directory of this user's. */
export async function ensureCacheDir(cacheDir: string): Promise<void> {
  await mkdir(cacheDir, { recursive: true, mode: 0o700 });
  const stat = await lstat(cacheDir);
  if (!stat.isDirectory())
    throw new SkillServiceError('invalid_config', 'the skill cache is not a directory');
  if (typeof process.getuid === 'function' && stat.uid !== process.getuid())
    throw new SkillServiceError(
      'invalid_config',
      'the skill cache directory belongs to another user',
    );
}

/** Renames staging into place; when another writer got there first, keeps theirs if valid. */
export async function installEntry(
  cacheDir: string,
  staging: string,
  entryDir: string,
  archiveHash: string,
): Promise<void> {
  for (let attempt = 0; attempt < 3; attempt += 1) {
    try {
      await rename(staging, entryDir);
      return;
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code !== 'ENOTEMPTY' && code !== 'EEXIST' && code !== 'EISDIR') throw error;
    }
    if (await verifyEntry(entryDir, archiveHash)) return;
    // A broken entry (a crashed writer, tampering): moved aside, then removed.
    const aside = path.join(cacheDir, `.broken-${randomBytes(8).toString('hex')}`);
    await rename(entryDir, aside).catch(() => undefined);
    await rm(aside, { recursive: true, force: true });
  }
  throw new SkillServiceError('cache_busy', 'the skill cache entry could not be installed');
}
