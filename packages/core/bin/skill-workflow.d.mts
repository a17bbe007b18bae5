// Types of skill-workflow.mjs (plain JavaScript so it runs unchanged inside a sandbox), for the
// host's TypeScript: src/skills/runtime imports it to drive local workflows without a process.

/** One skill directory (with a SKILL.md). */
export interface SkillDir {
  name: string;
  root: string;
}

/** One command the workflow ran. */
export interface CommandRecord {
  command: string;
  cwd: string;
  exit_code: number | null;
  stdout: string;
  stderr: string;
  timed_out: boolean;
}

/** Runs one command with its whole process group killed at the deadline and when it exits. */
export type RunCommand = (
  argv: string[],
  cwd: string,
  env: Record<string, string>,
  timeoutMs: number,
) => Promise<CommandRecord>;

/** What a workflow run did. */
export interface WorkflowResult {
  status: string;
  executed_skill: string | null;
  output_files: string[];
  artifacts: string[];
  commands: CommandRecord[];
  selected_skills: string[];
  loaded_skills: string[];
  warnings: string[];
  error: string | null;
}

/** Requested names: strings or lists, comma-split, trimmed, de-duplicated case-insensitively. */
export function skillNames(value: unknown): string[];

/** The skill directories under `dir` (each with a SKILL.md), sorted. */
export function skillsUnder(dir: string): SkillDir[];

/** The last 4,000 characters. */
export function tail(text: string): string;

/**
 * Runs one workflow request: picks the skill, runs its entry point through `runCommand` and
 * reports status, commands and output files.
 */
export function executeWorkflow(
  request: unknown,
  driver: { runCommand: RunCommand; baseEnv: Record<string, string>; skillsDir?: string },
): Promise<WorkflowResult>;
