// @ts-check
// The skill workflow logic of the KsADK Skill Runtime, shared by its two drivers: the runtime
// agent (`ksadk-skill-runtime`, which runs it inside a sandbox) and the host (which runs it
// directly against a local_process or bubblewrap session, without an extra process). It picks
// the skill, runs its entry point through `runCommand` and reports what happened. Only Node
// built-ins are used, so the file runs unchanged in a sandbox.
import {
  existsSync,
  lstatSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import path from 'node:path';

const TAIL = 4000;
const MAX_ARTIFACTS = 1000;
const DEFAULT_TIMEOUT_MS = 900_000;

/** @typedef {{ name: string, root: string }} SkillDir */
/** @typedef {{ command: string, cwd: string, exit_code: number | null, stdout: string, stderr: string, timed_out: boolean }} CommandRecord */
/**
 * Runs one command with its whole process group killed at the deadline and when it exits.
 * @typedef {(argv: string[], cwd: string, env: Record<string, string>, timeoutMs: number) => Promise<CommandRecord>} RunCommand
 */
/**
 * @typedef {{
 *   status: string, executed_skill: string | null, output_files: string[], artifacts: string[],
 *   commands: CommandRecord[], selected_skills: string[], loaded_skills: string[],
 *   warnings: string[], error: string | null
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

/** The skill directories under `dir` (each with a SKILL.md), sorted. @param {string} dir @returns {SkillDir[]} */
export function skillsUnder(dir) {
  if (!dir || !existsSync(dir)) return [];
  return readdirSync(dir, { withFileTypes: true })
    .filter((entry) => entry.isDirectory() && existsSync(path.join(dir, entry.name, 'SKILL.md')))
    .map((entry) => ({ name: entry.name, root: path.join(dir, entry.name) }))
    .sort((a, b) => (a.name < b.name ? -1 : 1));
}

/** The last 4,000 characters. @param {string} text */
export const tail = (text) => (text.length > TAIL ? text.slice(-TAIL) : text);

/** Regular files under `dir`, relative, sorted, capped. @param {string} dir @returns {string[]} */
function filesUnder(dir) {
  /** @type {string[]} */
  const out = [];
  /** @param {string} relative */
  const walk = (relative) => {
    let entries;
    try {
      entries = readdirSync(path.join(dir, relative), { withFileTypes: true });
    } catch {
      return;
    }
    entries.sort((a, b) => (a.name < b.name ? -1 : 1));
    for (const entry of entries) {
      if (out.length >= MAX_ARTIFACTS) return;
      const child = relative ? `${relative}/${entry.name}` : entry.name;
      if (entry.isDirectory()) walk(child);
      else if (entry.isFile()) out.push(child);
    }
  };
  walk('');
  return out;
}

/** @param {string} file */
const isFile = (file) => {
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
 * @param {WorkflowResult} result @param {string} workDir @param {string} outputDir @param {string[]} declared
 */
function finishArtifacts(result, workDir, outputDir, declared) {
  const files = filesUnder(outputDir).map((file) => `output/${file}`);
  /** @type {[string, string][]} */
  const places = [
    [outputDir, 'output'],
    [workDir, 'work'],
  ];
  for (const item of declared) {
    for (const [dir, label] of places) {
      const absolute = path.resolve(dir, item);
      const relative = path.relative(dir, absolute);
      if (relative.startsWith('..') || path.isAbsolute(relative) || !isFile(absolute)) continue;
      const handle = `${label}/${relative.split(path.sep).join('/')}`;
      if (!files.includes(handle) && files.length < MAX_ARTIFACTS) files.push(handle);
      break;
    }
  }
  result.output_files = files;
  result.artifacts = files;
  return result;
}

/**
 * Runs one workflow request: picks the skill (the selected names, case-insensitive, or all),
 * runs the web-artifacts builder when the prompt asks for an artifact, else the first
 * `scripts/run-workflow.sh`, and reports status, commands and output files.
 *
 * @param {any} request `{ workflow_prompt, skill_names, skills?: [{name, root}], work_dir, output_dir, timeout_ms, artifact_project? }`
 * @param {{ runCommand: RunCommand, baseEnv: Record<string, string>, skillsDir?: string }} driver
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
  mkdirSync(workDir, { recursive: true });
  mkdirSync(outputDir, { recursive: true });
  /** @type {CommandRecord[]} */
  const commands = [];
  /** @type {WorkflowResult} */
  const result = {
    status: 'no_skills',
    executed_skill: null,
    output_files: [],
    artifacts: [],
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
      isFile(path.join(s.root, 'scripts', 'init-artifact.sh')) &&
      isFile(path.join(s.root, 'scripts', 'bundle-artifact.sh')),
  );
  if (builder && /web-artifacts-builder|artifact|bundle|html|react/.test(prompt.toLowerCase())) {
    const project = projectName(
      request.artifact_project ||
        driver.baseEnv['KSADK_SKILL_ARTIFACT_PROJECT'] ||
        'ksadk-artifact',
    );
    const projectDir = path.join(workDir, project);
    rmSync(projectDir, { recursive: true, force: true });
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
      return finishArtifacts(result, workDir, outputDir, []);
    }
    const bundle = await driver.runCommand(
      ['bash', path.join(builder.root, 'scripts', 'bundle-artifact.sh')],
      projectDir,
      builderEnv,
      timeoutMs,
    );
    commands.push(bundle);
    const html = path.join(projectDir, 'bundle.html');
    const ok = bundle.exit_code === 0 && isFile(html);
    if (ok) writeFileSync(path.join(outputDir, 'bundle.html'), readFileSync(html));
    result.status = ok ? 'ok' : 'failed';
    if (!ok)
      result.error = bundle.timed_out
        ? 'bundle-artifact.sh timed out'
        : 'bundle-artifact.sh did not produce bundle.html';
    return finishArtifacts(result, workDir, outputDir, []);
  }

  const runnable = candidates.find((s) => isFile(path.join(s.root, 'scripts', 'run-workflow.sh')));
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
  return finishArtifacts(result, workDir, outputDir, declared);
}
