import { readdir } from 'node:fs/promises';
import path from 'node:path';
import { createSkillToolset, type SkillLibrary, validateSkill } from '@ksadk/core/skills';
import type { CommandContext } from '../command-context.js';
import { EXIT, shown } from '../terminal.js';

/** One problem of a skill, as `validate` reports it. */
export interface SkillProblem {
  readonly file: string;
  /** The frontmatter field (or `body`) at fault, when one is. */
  readonly field?: string;
  readonly message: string;
}

const FIELDS = [
  'name',
  'description',
  'license',
  'compatibility',
  'metadata',
  'allowed-tools',
  'body',
];

/** The field a validation message is about. */
function fieldOf(message: string): string | undefined {
  const unknown = /^unknown frontmatter field "([^"]+)"/.exec(message);
  if (unknown) return unknown[1];
  const absent = /frontmatter has no ([a-z-]+)/.exec(message);
  if (absent) return absent[1];
  const first = /^([a-z-]+)\b/.exec(message)?.[1];
  return first && FIELDS.includes(first) ? first : undefined;
}

/** The skill folders under `dir`: itself when it holds a SKILL.md, else each sub-folder that does. */
async function skillDirsOf(dir: string): Promise<string[]> {
  let entries: import('node:fs').Dirent[];
  try {
    entries = await readdir(dir, { withFileTypes: true });
  } catch {
    return [dir];
  }
  if (entries.some((entry) => entry.isFile() && /^skill\.md$/i.test(entry.name))) return [dir];
  const children = entries
    .filter((entry) => entry.isDirectory() && !entry.name.startsWith('.'))
    .map((entry) => path.join(dir, entry.name))
    .sort();
  const found: string[] = [];
  for (const child of children) {
    const inner = await readdir(child).catch(() => [] as string[]);
    if (inner.some((name) => /^skill\.md$/i.test(name))) found.push(child);
  }
  return found.length > 0 ? found : [dir];
}

/** `ksadk skills validate <dir…>`: every problem, one line each with file and field; exit 1 on any. */
export async function validateCommand(
  dirs: string[],
  options: { json?: boolean },
  { terminal }: CommandContext,
): Promise<number> {
  const results: { dir: string; ok: boolean; problems: SkillProblem[] }[] = [];
  for (const given of dirs)
    for (const dir of await skillDirsOf(given)) {
      const { problems } = await validateSkill(dir);
      const file = path.join(dir, 'SKILL.md');
      results.push({
        dir,
        ok: problems.length === 0,
        problems: problems.map((message) => {
          const field = fieldOf(message);
          return { file, ...(field ? { field } : {}), message };
        }),
      });
    }
  const ok = results.every((result) => result.ok);
  if (options.json) terminal.json({ ok, skills: results });
  else
    for (const result of results) {
      if (result.ok) terminal.line(`${terminal.paint('ok', '✓')} ${shown(result.dir)}`);
      for (const problem of result.problems)
        terminal.line(
          `${terminal.paint('bad', '✗')} ${shown(problem.file)}: ${problem.field ? `${terminal.paint('bold', problem.field)}: ` : ''}${shown(problem.message)}`,
        );
    }
  return ok ? EXIT.ok : EXIT.problems;
}

/** The library of the local folder (`--dir` or `KSADK_LOCAL_SKILLS_DIR`) and the configured spaces. */
async function libraryOf(dir: string | undefined, env: NodeJS.ProcessEnv): Promise<SkillLibrary> {
  const { library } = await createSkillToolset({
    env,
    runtime: false,
    ...(dir ? { localDir: dir } : {}),
  });
  return library;
}

/** `ksadk skills list | search <query> | show <name>`. */
export async function readCommand(
  command: 'list' | 'search' | 'show',
  args: unknown[],
  { terminal, env }: CommandContext,
): Promise<number> {
  const positional = command === 'list' ? undefined : String(args[0]);
  const options = (command === 'list' ? args[0] : args[1]) as { dir?: string; json?: boolean };
  const library = await libraryOf(options.dir, env);
  if (!library.hasLocal && !library.hasRemote) {
    terminal.note('No skills configured: give --dir, KSADK_LOCAL_SKILLS_DIR or skill spaces.');
    return EXIT.problems;
  }
  if (command === 'list') {
    const { entries, warnings } = await terminal.progress('listing skills', () => library.list());
    if (entries.length === 0 && warnings.length === 0 && !options.json) {
      terminal.note(
        `No skills: none in ${options.dir ?? 'the local skills folder (KSADK_LOCAL_SKILLS_DIR, else ./skills)'}, and no skill space configured.`,
      );
      return EXIT.problems;
    }
    const skills = entries.map(({ name, description, version, space_id, source, tags }) => ({
      name,
      description,
      version,
      space: space_id,
      source,
      tags,
    }));
    if (options.json) terminal.json({ skills, warnings });
    else {
      for (const skill of skills)
        terminal.line(
          `${terminal.paint('bold', skill.name)} ${terminal.paint('dim', `${skill.source} · ${skill.space}`)}\n  ${skill.description}`,
        );
      for (const warning of warnings)
        terminal.note(terminal.paint('warn', `warning: ${warning}`, 'err'));
    }
    return warnings.length > 0 ? EXIT.problems : EXIT.ok;
  }
  if (command === 'search') {
    const matches = await terminal.progress('searching skills', () =>
      library.search(positional!, { limit: 20 }),
    );
    const found = matches.map((match) => ({
      name: match.skill.name,
      description: match.skill.description,
      space: match.skill.space_id,
      score: match.score,
      reason: match.reason,
    }));
    if (options.json) terminal.json({ query: positional, matches: found });
    else if (found.length === 0) terminal.line(`No skill matches "${shown(positional)}".`);
    else
      for (const match of found)
        terminal.line(
          `${terminal.paint('bold', match.name)} ${terminal.paint('dim', `(${match.reason})`)}\n  ${match.description}`,
        );
    return found.length > 0 ? EXIT.ok : EXIT.problems;
  }
  const loaded = await terminal.progress(`loading ${positional}`, () => library.load(positional!));
  if (!loaded) {
    terminal.note(`No skill named ${shown(positional)}.`);
    return EXIT.problems;
  }
  const { skill } = loaded;
  const view = {
    name: skill.name,
    description: skill.description,
    source: skill.source,
    space: loaded.entry.space_id,
    verified: loaded.verified,
    frontmatter: skill.frontmatter,
    resources: skill.resources,
    hasWorkflow: skill.hasWorkflow,
    problems: [...skill.warnings, ...loaded.warnings],
    body: skill.body,
  };
  if (options.json) terminal.json(view);
  else {
    terminal.line(
      `${terminal.paint('bold', view.name)} ${terminal.paint('dim', `${view.source} · ${view.space}${view.verified ? ' · verified' : ''}`)}`,
    );
    terminal.line(shown(view.description));
    for (const problem of view.problems)
      terminal.line(terminal.paint('warn', `warning: ${problem}`));
    const files = [
      ...skill.resources.scripts,
      ...skill.resources.references,
      ...skill.resources.assets,
    ];
    if (files.length > 0) terminal.line(`resources: ${shown(files.join(', '))}`);
    terminal.line('');
    terminal.line(shown(view.body));
  }
  return EXIT.ok;
}
