import { crc32, deflateRawSync } from 'node:zlib';

/** One entry of {@link createZip}: ordinary by default, hostile on request (for tests). */
export interface ZipEntrySpec {
  /** The entry name, written as given (`../x`, `/abs`, `a\\b` included). */
  name: string;
  /** File content (a directory when the name ends in `/` and data is empty). */
  data?: string | Uint8Array;
  /** Unix mode including the type bits (`0o120777` makes a symlink entry). @default 0o100644 / 0o040755 */
  mode?: number;
  /** Store instead of deflate. @default false (deflate) */
  store?: boolean;
  /** Lie about the uncompressed size (declared sizes are what an extractor plans with). */
  declaredSize?: number;
}

/**
 * Builds a zip archive in memory with full control over each entry — names, Unix modes
 * (symlinks, devices), sizes — so tests can make the hostile archives real tools refuse to make.
 * For ordinary skill archives use {@link createSkillArchive}.
 *
 * @example
 * ```ts
 * const zip = createZip([{ name: 'demo/SKILL.md', data: '---\nname: demo\ndescription: Demo.\n---\n' }]);
 * ```
 */
export function createZip(entries: readonly ZipEntrySpec[]): Buffer {
  const locals: Buffer[] = [];
  const centrals: Buffer[] = [];
  let offset = 0;
  for (const spec of entries) {
    const raw =
      typeof spec.data === 'string'
        ? Buffer.from(spec.data)
        : Buffer.from(spec.data ?? new Uint8Array());
    const directory = spec.name.endsWith('/') && raw.length === 0;
    const method = spec.store || directory ? 0 : 8;
    const body = method === 8 ? deflateRawSync(raw) : raw;
    const name = Buffer.from(spec.name);
    const crc = crc32(raw) >>> 0;
    const size = spec.declaredSize ?? raw.length;
    const mode = spec.mode ?? (directory ? 0o040755 : 0o100644);

    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt16LE(20, 4);
    local.writeUInt16LE(0x0800, 6);
    local.writeUInt16LE(method, 8);
    local.writeUInt32LE(0x00210000, 10); // 1980-01-01 00:00
    local.writeUInt32LE(crc, 14);
    local.writeUInt32LE(body.length, 18);
    local.writeUInt32LE(size, 22);
    local.writeUInt16LE(name.length, 26);
    local.writeUInt16LE(0, 28);
    locals.push(local, name, body);

    const central = Buffer.alloc(46);
    central.writeUInt32LE(0x02014b50, 0);
    central.writeUInt16LE((3 << 8) | 20, 4); // made by Unix
    central.writeUInt16LE(20, 6);
    central.writeUInt16LE(0x0800, 8);
    central.writeUInt16LE(method, 10);
    central.writeUInt32LE(0x00210000, 12);
    central.writeUInt32LE(crc, 16);
    central.writeUInt32LE(body.length, 20);
    central.writeUInt32LE(size, 24);
    central.writeUInt16LE(name.length, 28);
    central.writeUInt32LE((mode << 16) >>> 0, 38);
    central.writeUInt32LE(offset, 42);
    centrals.push(central, name);
    offset += local.length + name.length + body.length;
  }
  const directory = Buffer.concat(centrals);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(entries.length, 8);
  end.writeUInt16LE(entries.length, 10);
  end.writeUInt32LE(directory.length, 12);
  end.writeUInt32LE(offset, 16);
  return Buffer.concat([...locals, directory, end]);
}

/**
 * Builds an ordinary skill archive from a map of skill-relative paths to contents, under a
 * top-level folder named for the skill (as the Skill Service packages them). Files under
 * `scripts/` are executable.
 *
 * @example
 * ```ts
 * const zip = createSkillArchive('report', {
 *   'SKILL.md': '---\nname: report\ndescription: Writes a report.\n---\nUse it for reports.',
 *   'scripts/run-workflow.sh': 'echo done > "$KSADK_SKILL_OUTPUT_DIR/report.md"',
 * });
 * ```
 */
export function createSkillArchive(
  folder: string,
  files: Readonly<Record<string, string | Uint8Array>>,
): Buffer {
  return createZip(
    Object.entries(files).map(([name, data]) => ({
      name: folder ? `${folder}/${name}` : name,
      data,
      mode: name.startsWith('scripts/') ? 0o100755 : 0o100644,
    })),
  );
}
