// @ts-check
// The skill workflow logic of the KsADK Skill Runtime, shared by its two drivers: the runtime
// agent (`ksadk-skill-runtime`, which runs it inside a sandbox) and the host (which runs it
// directly against a local_process or bubblewrap session, without an extra process). It picks
// the skill, runs its entry point through `runCommand` and reports what happened. Only Node
// built-ins are used, so the file runs unchanged in a sandbox.
import { existsSync, lstatSync, readdirSync } from 'node:fs';
import { lstat, mkdir, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';

const TAIL = 4000;
const MAX_ARTIFACTS = 1000;
const DEFAULT_TIMEOUT_MS = 900_000;
/** The largest bundle copied to the output folder. */
const MAX_BUNDLE_BYTES = 64 * 1024 * 1024;
/** Bounds of the output walk: entries looked at, folder depth, time. */
export const OUTPUT_WALK_LIMITS = Object.freeze({
  maxFiles: MAX_ARTIFACTS,
  maxEntries: 10_000,
  maxDepth: 32,
  deadlineMs: 5_000,
});

/** @typedef {{ name: string, root: string }} SkillDir */
/** @typedef {{ command: string, cwd: string, exit_code: number | null, stdout: string, stderr: string, timed_out: boolean }} CommandRecord */
/**
 * Runs one command with its whole process group killed at the deadline and when it exits.
 * @typedef {(argv: string[], cwd: string, env: Record<string, string>, timeoutMs: number) => Promise<CommandRecord>} RunCommand
 */
/**
 * What the workflow does with files of its run folders after commands ran there. The host passes
 * its own, which follows no link and creates files exclusively (the folders are the sandboxed
 * workflow's, hence hostile); inside a sandbox the plain one below is used. Paths are absolute.
 * @typedef {{
 *   makeDirectory(dir: string): Promise<void>,
 *   remove(target: string): Promise<void>,
 *   isFile(file: string): Promise<boolean>,
 *   copyFile(from: string, to: string, maxBytes: number): Promise<boolean>,
 *   listFiles(dir: string): Promise<{ files: string[], truncated: boolean }>,
 * }} WorkflowFiles
 */
/**
 * @typedef {{
 *   status: string, executed_skill: string | null, output_files: string[], artifacts: string[],
 *   output_files_truncated: boolean, commands: CommandRecord[], selected_skills: string[],
 *   loaded_skills: string[], warnings: string[], error: string | null
 * }} WorkflowResult
 */

/** Requested names: strings or lists, comma-split, trimmed, de-duplicated case-insensitively. @param {unknown} value @returns {string[]} */
export function skillNames(value) {
  const items = Array.isArray(value) ? value : typeof value === 'string' ? [value] : [];
  /** @type {string[]} */
  const out = [];
  for (const item of items)
    if (typeof item === 'string')
      for (const part of item.split(',')) {
        const name = part.trim();
        if (name && !out.some((seen) => seen.toLowerCase() === name.toLowerCase())) out.push(name);
      }
  return out;
}

/** The skill directories under `dir` (each with a SKILL.md or skill.md), sorted. @param {string} dir @returns {SkillDir[]} */
export function skillsUnder(dir) {
  if (!dir || !existsSync(dir)) return [];
  return readdirSync(dir, { withFileTypes: true })
    .filter(
      (entry) =>
        entry.isDirectory() &&
        (existsSync(path.join(dir, entry.name, 'SKILL.md')) ||
          existsSync(path.join(dir, entry.name, 'skill.md'))),
    )
    .map((entry) => ({ name: entry.name, root: path.join(dir, entry.name) }))
    .sort((a, b) => (a.name < b.name ? -1 : 1));
}

/** The last 4,000 characters. @param {string} text */
export const tail = (text) => (text.length > TAIL ? text.slice(-TAIL) : text);

/**
 * The plain files of a run, for a runtime agent inside a sandbox (where the folders are its own):
 * links are not followed, the walk is bounded like the host's.
 * @type {WorkflowFiles}
 */
export const plainWorkflowFiles = {
  makeDirectory: async (dir) => {
    await mkdir(dir, { recursive: true });
  },
  remove: (target) => rm(target, { recursive: true, force: true }),
  isFile: async (file) => (await lstat(file).catch(() => undefined))?.isFile() === true,
  copyFile: async (from, to, maxBytes) => {
    const stats = await lstat(from).catch(() => undefined);
    if (!stats?.isFile() || stats.size > maxBytes) return false;
    await rm(to, { force: true });
    await writeFile(to, await readFile(from), { flag: 'wx' });
    return true;
  },
  listFiles: async (dir) => {
    const limits = OUTPUT_WALK_LIMITS;
    const deadline = Date.now() + limits.deadlineMs;
    /** @type {string[]} */
    const files = [];
    let visited = 0;
    let truncated = false;
    let stopped = false;
    /** @param {string} relative @param {number} depth */
    const walk = async (relative, depth) => {
      const entries = await readdir(path.join(dir, relative), { withFileTypes: true }).catch(
        () => [],
      );
      entries.sort((a, b) => (a.name < b.name ? -1 : 1));
      for (const entry of entries) {
        if (visited >= limits.maxEntries || Date.now() > deadline) {
          truncated = stopped = true;
          return;
        }
        visited += 1;
        const child = relative ? `${relative}/${entry.name}` : entry.name;
        if (entry.isFile()) {
          // Truncated only when there is a file more than may be listed.
          if (files.length >= limits.maxFiles) {
            truncated = stopped = true;
            return;
          }
          files.push(child);
        } else if (entry.isDirectory()) {
          if (depth >= limits.maxDepth) truncated = true;
          else await walk(child, depth + 1);
          if (stopped) return;
        }
      }
    };
    if ((await lstat(dir).catch(() => undefined))?.isDirectory()) await walk('', 0);
    return { files: files.sort(), truncated };
  },
};

/** Whether a skill's own script exists (skill folders are the host's, not the workflow's). @param {string} file */
const isSkillFile = (file) => {
  try {
    return lstatSync(file).isFile();
  } catch {
    return false;
  }
};

/** The artifact project name: alnum, `-`, `_`; at most 80 characters. @param {string} raw */
function projectName(raw) {
  const cleaned = raw
    .replace(/[^A-Za-z0-9_-]/g, '-')
    .replace(/^[-_]+|[-_]+$/g, '')
    .slice(0, 80);
  return cleaned || 'ksadk-artifact';
}

/**
 * Output files: every file under the output directory (`output/<path>`), plus files a workflow
 * declared with `artifact=<path>` that exist inside the work or output directory.
 * @param {WorkflowResult} result @param {WorkflowFiles} files @param {string} workDir
 * @param {string} outputDir @param {string[]} declared
 */
async function finishArtifacts(result, files, workDir, outputDir, declared) {
  const listed = await files.listFiles(outputDir);
  const found = listed.files.map((file) => `output/${file}`);
  /** @type {[string, string][]} */
  const places = [
    [outputDir, 'output'],
    [workDir, 'work'],
  ];
  for (const item of declared.slice(0, MAX_ARTIFACTS)) {
    for (const [dir, label] of places) {
      const absolute = path.resolve(dir, item);
      const relative = path.relative(dir, absolute);
      if (relative === '' || relative.startsWith('..') || path.isAbsolute(relative)) continue;
      if (!(await files.isFile(absolute))) continue;
      const handle = `${label}/${relative.split(path.sep).join('/')}`;
      if (!found.includes(handle) && found.length < MAX_ARTIFACTS) found.push(handle);
      break;
    }
  }
  result.output_files = found;
  result.artifacts = found;
  result.output_files_truncated = listed.truncated;
  return result;
}

/**
 * Runs one workflow request: picks the skill (the selected names, case-insensitive, or all),
 * runs the web-artifacts builder when the prompt asks for an artifact, else the first
 * `scripts/run-workflow.sh`, and reports status, commands and output files.
 *
 * @param {any} request `{ workflow_prompt, skill_names, skills?: [{name, root}], work_dir, output_dir, timeout_ms, artifact_project? }`
 * @param {{ runCommand: RunCommand, baseEnv: Record<string, string>, skillsDir?: string, files?: WorkflowFiles }} driver
 * @returns {Promise<WorkflowResult>}
 */
export async function executeWorkflow(request, driver) {
  const prompt =
    typeof request.workflow_prompt === 'string'
      ? request.workflow_prompt
      : typeof request.prompt === 'string'
        ? request.prompt
        : '';
  const selected = skillNames(
    request.skill_names ?? request.selected_skills ?? driver.baseEnv['KSADK_SELECTED_SKILL_NAMES'],
  );
  /** @type {SkillDir[]} */
  const skills = Array.isArray(request.skills)
    ? request.skills
        .filter(
          (/** @type {any} */ s) => s && typeof s.name === 'string' && typeof s.root === 'string',
        )
        .map((/** @type {SkillDir} */ s) => ({ name: s.name, root: path.resolve(s.root) }))
    : skillsUnder(driver.skillsDir ?? '');
  const workDir = path.resolve(request.work_dir || 'work');
  const outputDir = path.resolve(request.output_dir || path.join(workDir, 'artifacts'));
  const timeoutMs =
    Number.isFinite(request.timeout_ms) && request.timeout_ms > 0
      ? request.timeout_ms
      : DEFAULT_TIMEOUT_MS;
  const files = driver.files ?? plainWorkflowFiles;
  await files.makeDirectory(workDir);
  await files.makeDirectory(outputDir);
  /** @type {CommandRecord[]} */
  const commands = [];
  /** @type {WorkflowResult} */
  const result = {
    status: 'no_skills',
    executed_skill: null,
    output_files: [],
    artifacts: [],
    output_files_truncated: false,
    commands,
    selected_skills: selected,
    loaded_skills: skills.map((s) => s.name),
    warnings: [],
    error: null,
  };
  if (skills.length === 0) return result;
  const wanted = new Set(selected.map((name) => name.toLowerCase()));
  const candidates =
    wanted.size > 0 ? skills.filter((s) => wanted.has(s.name.toLowerCase())) : skills;
  if (candidates.length === 0) {
    result.status = 'failed';
    result.error = `none of the selected skills is loaded: ${selected.join(', ')}`;
    return result;
  }
  /** @type {Record<string, string>} */
  const env = {
    ...driver.baseEnv,
    CI: driver.baseEnv['CI'] || '1',
    KSADK_WORKFLOW_PROMPT: prompt,
    KSADK_SKILL_WORKDIR: workDir,
    KSADK_SKILL_OUTPUT_DIR: outputDir,
  };

  // The web artifacts builder: init + bundle, when the prompt asks for an artifact.
  const builder = candidates.find(
    (s) =>
      s.name === 'web-artifacts-builder' &&
      isSkillFile(path.join(s.root, 'scripts', 'init-artifact.sh')) &&
      isSkillFile(path.join(s.root, 'scripts', 'bundle-artifact.sh')),
  );
  if (builder && /web-artifacts-builder|artifact|bundle|html|react/.test(prompt.toLowerCase())) {
    const project = projectName(
      request.artifact_project ||
        driver.baseEnv['KSADK_SKILL_ARTIFACT_PROJECT'] ||
        'ksadk-artifact',
    );
    const projectDir = path.join(workDir, project);
    await files.remove(projectDir);
    const builderEnv = { ...env, KSADK_SKILL_ROOT_DIR: builder.root };
    result.executed_skill = builder.name;
    const init = await driver.runCommand(
      ['bash', path.join(builder.root, 'scripts', 'init-artifact.sh'), project],
      workDir,
      builderEnv,
      timeoutMs,
    );
    commands.push(init);
    if (init.exit_code !== 0) {
      result.status = 'failed';
      result.error = init.timed_out ? 'init-artifact.sh timed out' : 'init-artifact.sh failed';
      return finishArtifacts(result, files, workDir, outputDir, []);
    }
    const bundle = await driver.runCommand(
      ['bash', path.join(builder.root, 'scripts', 'bundle-artifact.sh')],
      projectDir,
      builderEnv,
      timeoutMs,
    );
    commands.push(bundle);
    const ok =
      bundle.exit_code === 0 &&
      (await files.copyFile(
        path.join(projectDir, 'bundle.html'),
        path.join(outputDir, 'bundle.html'),
        MAX_BUNDLE_BYTES,
      ));
    result.status = ok ? 'ok' : 'failed';
    if (!ok)
      result.error = bundle.timed_out
        ? 'bundle-artifact.sh timed out'
        : `bundle-artifact.sh did not produce bundle.html (a regular file of at most ${MAX_BUNDLE_BYTES} bytes in the project folder)`;
    return finishArtifacts(result, files, workDir, outputDir, []);
  }

  const runnable = candidates.find((s) =>
    isSkillFile(path.join(s.root, 'scripts', 'run-workflow.sh')),
  );
  if (!runnable) {
    result.status = 'skipped';
    result.warnings.push(
      'No loaded skill exposes an executable workflow entrypoint (scripts/run-workflow.sh).',
    );
    return result;
  }
  result.executed_skill = runnable.name;
  const run = await driver.runCommand(
    ['bash', path.join(runnable.root, 'scripts', 'run-workflow.sh')],
    workDir,
    { ...env, KSADK_SKILL_ROOT_DIR: runnable.root },
    timeoutMs,
  );
  commands.push(run);
  result.status = run.exit_code === 0 ? 'ok' : 'failed';
  if (run.exit_code !== 0)
    result.error = run.timed_out
      ? `run-workflow.sh timed out after ${timeoutMs} ms`
      : `run-workflow.sh exited with ${run.exit_code}`;
  const declared = run.stdout
    .split('\n')
    .filter((line) => line.startsWith('artifact='))
    .map((line) => line.slice('artifact='.length).trim());
  return finishArtifacts(result, files, workDir, outputDir, declared);
}
