import { createHash, randomBytes } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { lstat, mkdir, open, readdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { BodyReadError, consumeBodyAtMost, declaresMoreThan } from '../util/body-limit.js';
import { defaultSkillCacheDir } from '../util/private-dirs.js';
import { reserveDirectory } from '../util/reserved-dirs.js';
import { loadSkillDirectory, type Skill } from './local-skills.js';
import { isSkillMdPath } from './skill-md.js';
import { type SkillRef, skillCacheKey } from './skill-ref.js';
import { SkillServiceError } from './skill-service-error.js';
import {
  type ArchiveLimits,
  DEFAULT_ARCHIVE_LIMITS,
  type ExtractedFile,
  extractSkillArchive,
} from './zip-extract.js';

/** Options for {@link createSkillPackageStore}. */
export interface SkillPackageStoreOptions {
  /** Cache directory. @default `KSADK_SKILL_CACHE_DIR`, else `<os tmp>/ksadk-skill-cache-<uid>` */
  cacheDir?: string;
  /** Archive caps. @default {@link DEFAULT_ARCHIVE_LIMITS} */
  limits?: Partial<ArchiveLimits>;
  /** Largest archive downloaded. @default 64 MiB */
  maxDownloadBytes?: number;
  /** Download time limit. @default 60 000 ms */
  downloadTimeoutMs?: number;
  /**
   * Load archives whose SHA-256 is missing or does not match (`KSADK_SKILL_ALLOW_HASH_MISMATCH`).
   * They are kept apart (`unverified-…`) and the load says so in `warnings` and `verified: false`.
   * @default false
   */
  allowHashMismatch?: boolean;
  fetch?: typeof fetch;
}

/** A remote skill loaded from the cache or downloaded. */
export interface SkillPackage {
  skill: Skill;
  ref: SkillRef;
  cacheHit: boolean;
  /** False only when the hash did not verify and `allowHashMismatch` let it load. */
  verified: boolean;
  warnings: string[];
}

/** Downloads, verifies, extracts and caches remote skill archives. */
export interface SkillPackageStore {
  readonly cacheDir: string;
  /** The skill of `ref`: re-verified from the cache, or downloaded from `url()` and stored. */
  load(ref: SkillRef, url: () => Promise<string>): Promise<SkillPackage>;
}

interface Manifest {
  version: 1;
  archive_sha256: string;
  verified: boolean;
  skill_root: string;
  files: ExtractedFile[];
}

const MANIFEST = 'manifest.json';
const ARCHIVE = 'archive.zip';
const EXTRACTED = 'extracted';

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
async function verifyEntry(
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
function skillRootOf(files: readonly ExtractedFile[]): string {
  const candidates = files
    .map((file) => file.path)
    .filter(isSkillMdPath)
    .sort((a, b) => a.split('/').length - b.split('/').length || (a < b ? -1 : a > b ? 1 : 0));
  if (candidates.length === 0)
    throw new SkillServiceError('invalid_skill_package', 'the archive has no SKILL.md');
  return path.posix.dirname(candidates[0]!);
}

/**
 * The store for remote skill archives. A download is streamed with a byte cap and a time limit
 * and no credentials; its SHA-256 must match the listing's content hash (required unless
 * `allowHashMismatch`); it is extracted with {@link extractSkillArchive}'s checks into a
 * temporary directory inside the cache and renamed into place with a manifest of file hashes.
 * A cached entry is re-verified (archive and every file) before reuse. Cache directory names come
 * from {@link skillCacheKey}, so no remote id reaches outside the cache; two processes filling
 * the same entry both end with a valid one.
 *
 * @example
 * ```ts
 * const store = createSkillPackageStore({ cacheDir: '/var/cache/ksadk-skills' });
 * const { skill, cacheHit } = await store.load(ref, () => client.downloadUrl(ref));
 * ```
 */
export function createSkillPackageStore(options: SkillPackageStoreOptions = {}): SkillPackageStore {
  const cacheDir = path.resolve(options.cacheDir ?? defaultSkillCacheDir());
  const limits: ArchiveLimits = { ...DEFAULT_ARCHIVE_LIMITS, ...options.limits };
  const maxDownload = options.maxDownloadBytes ?? 64 * 1024 * 1024;
  const downloadTimeoutMs = options.downloadTimeoutMs ?? 60_000;
  const fetchImpl = options.fetch ?? fetch;
  const inFlight = new Map<string, Promise<SkillPackage>>();
  reserveDirectory(cacheDir);

  const ensureCacheDir = async (): Promise<void> => {
    await mkdir(cacheDir, { recursive: true, mode: 0o700 });
    const stat = await lstat(cacheDir);
    if (!stat.isDirectory())
      throw new SkillServiceError('invalid_config', 'the skill cache is not a directory');
    if (typeof process.getuid === 'function' && stat.uid !== process.getuid())
      throw new SkillServiceError(
        'invalid_config',
        'the skill cache directory belongs to another user',
      );
  };

  const download = async (url: string, target: string): Promise<string> => {
    let response: Response;
    try {
      response = await fetchImpl(url, {
        method: 'GET',
        redirect: 'follow',
        signal: AbortSignal.timeout(downloadTimeoutMs),
      });
    } catch (error) {
      const timedOut = (error as Error).name === 'TimeoutError';
      throw new SkillServiceError(
        timedOut ? 'download_timeout' : 'download_failed',
        timedOut
          ? `the skill download timed out after ${downloadTimeoutMs} ms`
          : 'the skill archive could not be downloaded',
      );
    }
    if (!response.ok || !response.body) {
      await response.body?.cancel().catch(() => undefined);
      throw new SkillServiceError(
        'download_failed',
        `the skill download answered HTTP ${response.status}`,
      );
    }
    const tooLarge = () =>
      new SkillServiceError('too_large', `the skill archive is larger than ${maxDownload} bytes`);
    if (declaresMoreThan(response.headers, maxDownload)) {
      await response.body.cancel().catch(() => undefined);
      throw tooLarge();
    }
    const hash = createHash('sha256');
    const handle = await open(target, 'wx', 0o600);
    try {
      const { truncated } = await consumeBodyAtMost(response.body, maxDownload, async (chunk) => {
        hash.update(chunk);
        await handle.write(chunk);
      }).catch((error: unknown) => {
        if (!(error instanceof BodyReadError)) throw error;
        const timedOut = (error.cause as Error | undefined)?.name === 'TimeoutError';
        throw new SkillServiceError(
          timedOut ? 'download_timeout' : 'download_failed',
          timedOut
            ? `the skill download timed out after ${downloadTimeoutMs} ms`
            : 'the skill download broke off',
        );
      });
      if (truncated) throw tooLarge();
    } finally {
      await handle.close();
    }
    return hash.digest('hex');
  };

  /** Checks the hash against the listing; returns whether it verified, or throws. */
  const checkHash = (ref: SkillRef, actual: string, warnings: string[]): boolean => {
    const expected = ref.contentHash;
    let problem: string | undefined;
    if (!expected) problem = `the listing gives no content hash for ${ref.name}`;
    else if (expected.algorithm !== 'sha256')
      problem = `unsupported content hash algorithm "${expected.algorithm.slice(0, 20)}"`;
    else if (expected.value !== actual)
      problem = `content hash mismatch for ${ref.name}: expected sha256:${expected.value.slice(0, 64)}, got sha256:${actual}`;
    if (!problem) return true;
    if (!options.allowHashMismatch) throw new SkillServiceError('hash_mismatch', problem);
    warnings.push(`${problem}; loaded UNVERIFIED because KSADK_SKILL_ALLOW_HASH_MISMATCH is set`);
    return false;
  };

  const fill = async (ref: SkillRef, url: () => Promise<string>): Promise<SkillPackage> => {
    await ensureCacheDir();
    const key = skillCacheKey(ref);
    const expected = ref.contentHash?.algorithm === 'sha256' ? ref.contentHash.value : undefined;
    const warnings: string[] = [];
    const verifiedDir = path.join(cacheDir, key);
    const cached = await verifyEntry(verifiedDir, expected);
    if (cached) return finish(ref, verifiedDir, cached, true, warnings);

    const staging = path.join(cacheDir, `.staging-${randomBytes(8).toString('hex')}`);
    await mkdir(staging, { mode: 0o700 });
    try {
      const actual = await download(await url(), path.join(staging, ARCHIVE));
      const verified = checkHash(ref, actual, warnings);
      const entryDir = verified ? verifiedDir : path.join(cacheDir, `unverified-${key}`);
      if (!verified) {
        const unverified = await verifyEntry(entryDir, actual);
        if (unverified) return finish(ref, entryDir, unverified, true, warnings);
      }
      await mkdir(path.join(staging, EXTRACTED), { mode: 0o700 });
      const files = await extractSkillArchive(
        path.join(staging, ARCHIVE),
        path.join(staging, EXTRACTED),
        limits,
      );
      const manifest: Manifest = {
        version: 1,
        archive_sha256: actual,
        verified,
        skill_root: skillRootOf(files),
        files,
      };
      await writeFile(path.join(staging, MANIFEST), JSON.stringify(manifest), { mode: 0o600 });
      await install(staging, entryDir, actual);
      return finish(ref, entryDir, manifest, false, warnings);
    } finally {
      await rm(staging, { recursive: true, force: true });
    }
  };

  /** Renames staging into place; when another writer got there first, keeps theirs if valid. */
  const install = async (staging: string, entryDir: string, archiveHash: string): Promise<void> => {
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
  };

  const finish = async (
    ref: SkillRef,
    entryDir: string,
    manifest: Manifest,
    cacheHit: boolean,
    warnings: string[],
  ): Promise<SkillPackage> => {
    if (!manifest.verified && cacheHit && warnings.length === 0)
      warnings.push(
        `${ref.name} was loaded UNVERIFIED (its content hash did not match) because KSADK_SKILL_ALLOW_HASH_MISMATCH is set`,
      );
    const root = path.join(
      entryDir,
      EXTRACTED,
      ...(manifest.skill_root === '.' ? [] : manifest.skill_root.split('/')),
    );
    const skill = await loadSkillDirectory(root, {
      expectedName: ref.name || undefined,
      source: 'remote',
    }).catch((error: Error) => {
      throw new SkillServiceError('invalid_skill_package', `${ref.name}: ${error.message}`);
    });
    return {
      skill,
      ref,
      cacheHit,
      verified: manifest.verified,
      warnings: [...warnings, ...skill.warnings],
    };
  };

  return {
    cacheDir,
    load(ref, url) {
      const key = skillCacheKey(ref);
      const running = inFlight.get(key);
      if (running) return running;
      const promise = fill(ref, url).finally(() => inFlight.delete(key));
      inFlight.set(key, promise);
      return promise;
    },
  };
}
