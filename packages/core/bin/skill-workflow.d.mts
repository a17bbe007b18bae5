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

/**
 * What the workflow does with files of its run folders after commands ran there (absolute
 * paths). The host passes one that follows no link and creates files exclusively.
 */
export interface WorkflowFiles {
  makeDirectory(dir: string): Promise<void>;
  remove(target: string): Promise<void>;
  isFile(file: string): Promise<boolean>;
  /** Copies a regular file of at most `maxBytes`; `false` when `from` is not one. */
  copyFile(from: string, to: string, maxBytes: number): Promise<boolean>;
  /** Regular files below `dir`, relative, sorted; `truncated` when a bound stopped the walk. */
  listFiles(dir: string): Promise<{ files: string[]; truncated: boolean }>;
}

/** The bounds of the output walk. */
export const OUTPUT_WALK_LIMITS: Readonly<{
  maxFiles: number;
  maxEntries: number;
  maxDepth: number;
  deadlineMs: number;
}>;

/** The plain files of a run, for a runtime agent inside a sandbox. */
export const plainWorkflowFiles: WorkflowFiles;

/** What a workflow run did. */
export interface WorkflowResult {
  status: string;
  executed_skill: string | null;
  output_files: string[];
  artifacts: string[];
  /** A bound (files, entries, depth, time) stopped the output walk before its end. */
  output_files_truncated: boolean;
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
  driver: {
    runCommand: RunCommand;
    baseEnv: Record<string, string>;
    skillsDir?: string;
    files?: WorkflowFiles;
  },
): Promise<WorkflowResult>;
