import { randomBytes } from 'node:crypto';
import { mkdir, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { defaultSkillCacheDir } from '../util/private-dirs.js';
import { reserveDirectory } from '../util/reserved-dirs.js';
import { loadSkillDirectory, type Skill } from './local-skills.js';
import {
  ARCHIVE,
  EXTRACTED,
  ensureCacheDir,
  installEntry,
  MANIFEST,
  type Manifest,
  skillRootOf,
  verifyEntry,
} from './skill-cache-entry.js';
import { type DownloadSettings, downloadArchive } from './skill-download.js';
import { type SkillRef, skillCacheKey } from './skill-ref.js';
import { SkillServiceError } from './skill-service-error.js';
import { type ArchiveLimits, DEFAULT_ARCHIVE_LIMITS, extractSkillArchive } from './zip-extract.js';

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

/** What a store was made with. */
interface StoreSettings {
  cacheDir: string;
  limits: ArchiveLimits;
  download: DownloadSettings;
  allowHashMismatch: boolean | undefined;
}

/** Checks the hash against the listing; returns whether it verified, or throws. */
function checkHash(
  ref: SkillRef,
  actual: string,
  warnings: string[],
  allowHashMismatch: boolean | undefined,
): boolean {
  const expected = ref.contentHash;
  let problem: string | undefined;
  if (!expected) problem = `the listing gives no content hash for ${ref.name}`;
  else if (expected.algorithm !== 'sha256')
    problem = `unsupported content hash algorithm "${expected.algorithm.slice(0, 20)}"`;
  else if (expected.value !== actual)
    problem = `content hash mismatch for ${ref.name}: expected sha256:${expected.value.slice(0, 64)}, got sha256:${actual}`;
  if (!problem) return true;
  if (!allowHashMismatch) throw new SkillServiceError('hash_mismatch', problem);
  warnings.push(`${problem}; loaded UNVERIFIED because KSADK_SKILL_ALLOW_HASH_MISMATCH is set`);
  return false;
}

/** The skill of `ref` from a verified cache entry, else downloaded, checked, extracted and installed. */
async function fill(
  settings: StoreSettings,
  ref: SkillRef,
  url: () => Promise<string>,
): Promise<SkillPackage> {
  const { cacheDir } = settings;
  await ensureCacheDir(cacheDir);
  const key = skillCacheKey(ref);
  const expected = ref.contentHash?.algorithm === 'sha256' ? ref.contentHash.value : undefined;
  const warnings: string[] = [];
  const verifiedDir = path.join(cacheDir, key);
  const cached = await verifyEntry(verifiedDir, expected);
  if (cached) return packageOf(ref, verifiedDir, cached, true, warnings);

  const staging = path.join(cacheDir, `.staging-${randomBytes(8).toString('hex')}`);
  await mkdir(staging, { mode: 0o700 });
  try {
    const actual = await downloadArchive(
      settings.download,
      await url(),
      path.join(staging, ARCHIVE),
    );
    const verified = checkHash(ref, actual, warnings, settings.allowHashMismatch);
    const entryDir = verified ? verifiedDir : path.join(cacheDir, `unverified-${key}`);
    if (!verified) {
      const unverified = await verifyEntry(entryDir, actual);
      if (unverified) return packageOf(ref, entryDir, unverified, true, warnings);
    }
    await mkdir(path.join(staging, EXTRACTED), { mode: 0o700 });
    const files = await extractSkillArchive(
      path.join(staging, ARCHIVE),
      path.join(staging, EXTRACTED),
      settings.limits,
    );
    const manifest: Manifest = {
      version: 1,
      archive_sha256: actual,
      verified,
      skill_root: skillRootOf(files),
      files,
    };
    await writeFile(path.join(staging, MANIFEST), JSON.stringify(manifest), { mode: 0o600 });
    await installEntry(cacheDir, staging, entryDir, actual);
    return packageOf(ref, entryDir, manifest, false, warnings);
  } finally {
    await rm(staging, { recursive: true, force: true });
  }
}

/** The package of an installed entry: its skill loaded from the extracted root, with the warnings. */
async function packageOf(
  ref: SkillRef,
  entryDir: string,
  manifest: Manifest,
  cacheHit: boolean,
  warnings: string[],
): Promise<SkillPackage> {
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
  const settings: StoreSettings = {
    cacheDir: path.resolve(options.cacheDir ?? defaultSkillCacheDir()),
    limits: { ...DEFAULT_ARCHIVE_LIMITS, ...options.limits },
    download: {
      fetch: options.fetch ?? fetch,
      maxBytes: options.maxDownloadBytes ?? 64 * 1024 * 1024,
      timeoutMs: options.downloadTimeoutMs ?? 60_000,
    },
    allowHashMismatch: options.allowHashMismatch,
  };
  const inFlight = new Map<string, Promise<SkillPackage>>();
  reserveDirectory(settings.cacheDir);

  return {
    cacheDir: settings.cacheDir,
    load(ref, url) {
      const key = skillCacheKey(ref);
      const running = inFlight.get(key);
      if (running) return running;
      const promise = fill(settings, ref, url).finally(() => inFlight.delete(key));
      inFlight.set(key, promise);
      return promise;
    },
  };
}
