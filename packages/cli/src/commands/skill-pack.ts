import { createHash } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { lstat, mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import { extractSkillArchive, validateSkill } from '@ksadk/core/skills';
import yazl from 'yazl';
import type { CommandContext } from '../command-context.js';
import { EXIT, shown } from '../terminal.js';

/** What a packed archive may hold: the limits a Skill Runtime applies when it unpacks one. */
const MAX_FILES = 2000;
const MAX_BYTES = 50 * 1024 * 1024;
/** Folders a skill's archive never carries. */
const SKIPPED = new Set(['.git', 'node_modules', '.DS_Store']);
/** One fixed time for every entry: the same skill packs to the same bytes. */
const EPOCH = new Date('2000-01-01T00:00:00Z');

/** The skill's files, sorted, as archive paths; symlinks and special files are problems. */
async function filesOf(
  root: string,
): Promise<{ files: { name: string; absolute: string; mode: number }[]; problems: string[] }> {
  const files: { name: string; absolute: string; mode: number }[] = [];
  const problems: string[] = [];
  let bytes = 0;
  const walk = async (relative: string): Promise<void> => {
    const entries = (await readdir(path.join(root, relative), { withFileTypes: true })).sort(
      (a, b) => (a.name < b.name ? -1 : 1),
    );
    for (const entry of entries) {
      if (SKIPPED.has(entry.name)) continue;
      const name = relative ? `${relative}/${entry.name}` : entry.name;
      const absolute = path.join(root, name);
      const stats = await lstat(absolute);
      if (stats.isSymbolicLink())
        problems.push(`${name}: a symlink (an archive carries files only)`);
      else if (stats.isDirectory()) await walk(name);
      else if (!stats.isFile()) problems.push(`${name}: not a regular file`);
      else {
        bytes += stats.size;
        files.push({ name, absolute, mode: stats.mode & 0o111 ? 0o100755 : 0o100644 });
      }
      if (files.length > MAX_FILES) throw new Error(`more than ${MAX_FILES} files`);
      if (bytes > MAX_BYTES) throw new Error(`more than ${MAX_BYTES / 1024 / 1024} MiB`);
    }
  };
  await walk('');
  return { files, problems };
}

/**
 * `ksadk skills pack <dir>`: the skill validated strictly, its files zipped under its name (no
 * symlinks, fixed times: the same skill packs to the same bytes), then unpacked again with the
 * checks a Skill Runtime applies and validated once more; prints the archive and its sha256.
 */
export async function packCommand(
  dir: string,
  options: { out?: string; json?: boolean },
  { terminal }: CommandContext,
): Promise<number> {
  const root = path.resolve(dir);
  const name = path.basename(root);
  const validation = await validateSkill(root);
  const listed = validation.ok ? await filesOf(root) : { files: [], problems: [] };
  const problems = [...validation.problems, ...listed.problems];
  if (problems.length > 0) {
    if (options.json) terminal.json({ ok: false, problems });
    else
      for (const problem of problems)
        terminal.line(
          `${terminal.paint('bad', '✗')} ${shown(path.join(dir, 'SKILL.md'))}: ${shown(problem)}`,
        );
    return EXIT.problems;
  }
  const out = path.resolve(options.out ?? `${name}.zip`);
  // The archive never lands inside the skill it packs (it would overwrite a file of it).
  if (out === root || out.startsWith(`${root}${path.sep}`)) {
    terminal.note(`--out ${shown(out)} is inside the skill folder: write the archive elsewhere.`);
    return EXIT.usage;
  }
  const zip = new yazl.ZipFile();
  for (const file of listed.files)
    zip.addFile(file.absolute, `${name}/${file.name}`, {
      mtime: EPOCH,
      mode: file.mode,
      compress: true,
    });
  zip.end();
  // A file that changes while it is packed fails the zip: an error, never a crash.
  const failed = new Promise<never>((_, reject) => zip.on('error', reject));
  failed.catch(() => undefined);
  await terminal.progress('packing', () =>
    Promise.race([pipeline(zip.outputStream, createWriteStream(out, { mode: 0o644 })), failed]),
  );
  const archive = await readFile(out);
  const sha256 = createHash('sha256').update(archive).digest('hex');
  // Verified as a runtime would take it: unpacked under the archive checks, then validated again.
  const check = await mkdtemp(path.join(tmpdir(), 'ksadk-pack-check-'));
  try {
    await extractSkillArchive(out, check);
    const again = await validateSkill(path.join(check, name));
    if (!again.ok)
      throw new Error(`the packed skill does not validate: ${again.problems.join('; ')}`);
  } catch (error) {
    await rm(out, { force: true });
    throw error;
  } finally {
    await rm(check, { recursive: true, force: true });
  }
  const result = {
    ok: true,
    archive: out,
    sha256,
    bytes: archive.length,
    files: listed.files.length,
  };
  if (options.json) terminal.json(result);
  else {
    terminal.line(
      `${terminal.paint('ok', '✓')} ${out} ${terminal.paint('dim', `(${listed.files.length} files, ${archive.length} bytes)`)}`,
    );
    terminal.line(`sha256 ${sha256}`);
  }
  return EXIT.ok;
}
