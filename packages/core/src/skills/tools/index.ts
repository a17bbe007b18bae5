import { checkOptions } from '../../errors/check-options.js';
import { KsadkError } from '../../errors/ksadk-error.js';
import {
  type CreateSandboxBackendOptions,
  createSandboxBackend,
} from '../../sandbox/create-sandbox-backend.js';
import { resolveSandboxBackend } from '../../sandbox/resolve-backend.js';
import type { SandboxBackend } from '../../sandbox/sandbox-backend.js';
import type { Tool } from '../../tool/tool.js';
import { flagFromEnv, wholeNumberFromEnv } from '../../util/env.js';
import { modelSafeErrorMessage } from '../../util/sanitize-message.js';
import { createSkillPackageStore } from '../package-store.js';
import { createSkillRuntime, type SkillRuntime } from '../runtime/skill-runtime.js';
import {
  createSkillServiceClient,
  type SkillServiceClientOptions,
  skillServiceClientOptionsFromEnv,
} from '../service-client.js';
import {
  resolveSkillServiceUrl,
  type SkillSpacesConfig,
  skillSpacesFromEnv,
} from '../service-env.js';
import { createSkillLibrary, type SkillLibrary } from '../skill-library.js';
import { localSkillsDir, resolveSkillsMode, type SkillsMode } from '../skills-mode.js';
import type { ArchiveLimits } from '../zip-extract.js';
import { createExecuteSkillsTool, type SkillRuntimeChoice } from './execute-skills-tool.js';
import { createSkillReadTools, skillManifestFor } from './skill-read-tools.js';

/** Options for {@link createSkillToolset}. Every field left out is read from the environment. */
export interface SkillToolsetOptions {
  /** Where `KSADK_*` variables are read. @default process.env */
  env?: NodeJS.ProcessEnv;
  /** Local skills directory, or `false`. @default `KSADK_LOCAL_SKILLS_DIR`, `KSADK_SKILL_CACHE_DIR`, `<project>/skills` */
  localDir?: string | false;
  /**
   * The Skill Service, or `false`. @default `KSADK_SKILL_SERVICE_URL` (or the AICP endpoint) with
   * `KSADK_SKILL_SPACE_IDS` / `KSADK_PUBLIC_SKILL_SPACE_IDS` and the token / AK-SK variables
   */
  service?:
    | {
        url: string;
        spaces: Partial<SkillSpacesConfig>;
        client?: Omit<SkillServiceClientOptions, 'baseUrl'>;
      }
    | false;
  /** Remote skill cache. @default `KSADK_SKILL_CACHE_DIR`, else a per-user temp directory */
  cacheDir?: string;
  /** Load archives whose hash does not verify (says so in every result). @default `KSADK_SKILL_ALLOW_HASH_MISMATCH` */
  allowHashMismatch?: boolean;
  /** Archive caps. @default 5,000 entries, 100 MiB, 100:1 */
  archiveLimits?: Partial<ArchiveLimits>;
  /**
   * The Skill Runtime for `execute_skills`: a runtime, a backend (name or object), or `false`.
   * @default the backend `resolveSandboxBackend({ purpose: 'skills' })` picks
   */
  runtime?: SkillRuntime | SandboxBackend | string | false;
  /** Options for the backend built from a name. */
  backendOptions?: CreateSandboxBackendOptions;
  /** Skills in the manifest instruction. @default `KSADK_SKILL_MANIFEST_LIMIT` or 30 */
  manifestLimit?: number;
}

/** The skill tools and what they share. */
export interface SkillToolset {
  /** Every skill tool: the read tools, then `execute_skills`. */
  readonly tools: readonly Tool[];
  /** `list_skill_spaces` (with spaces), `list_skills`, `search_skills`, `load_skill`, `load_skill_resource`. */
  readonly readTools: readonly Tool[];
  readonly executeSkills: Tool;
  readonly library: SkillLibrary;
  /** The runtime backend `execute_skills` uses (`disabled` when none). */
  readonly backend: string;
  /** The manifest instruction for `execute_skills` (skills fenced as data). */
  manifestInstruction(): Promise<{ text: string; warnings: string[] }>;
}

const isRuntime = (value: unknown): value is SkillRuntime =>
  typeof value === 'object' && value !== null && typeof (value as SkillRuntime).run === 'function';

/**
 * The skill tools (group `skill`) over local skills and configured Skill Service spaces, with
 * `execute_skills` on the Skill Runtime backend the one resolver picks. Nothing here bypasses the
 * gateway: adapters inject these tools through `loadAgentTools` like every other tool.
 *
 * @example
 * ```ts
 * const skills = await createSkillToolset({ localDir: './skills', runtime: 'bubblewrap' });
 * const load = await loadAgentTools({ skills: { tools: skills.tools } });
 * ```
 */
export async function createSkillToolset(options: SkillToolsetOptions = {}): Promise<SkillToolset> {
  checkOptions(
    options,
    {
      env: true,
      localDir: true,
      service: true,
      cacheDir: true,
      allowHashMismatch: true,
      archiveLimits: true,
      runtime: true,
      backendOptions: true,
      manifestLimit: true,
    },
    'createSkillToolset()',
  );
  const env = options.env ?? process.env;
  const localDir =
    options.localDir === false ? undefined : (options.localDir ?? localSkillsDir(env));
  const timeoutSeconds = wholeNumberFromEnv(env, 'KSADK_SKILL_MANIFEST_TIMEOUT', undefined, 1);

  let service: Parameters<typeof createSkillLibrary>[0]['service'];
  if (options.service !== false) {
    const fromEnv = skillSpacesFromEnv(env);
    const spaces: SkillSpacesConfig = {
      user: options.service?.spaces.user ?? fromEnv.user,
      public: options.service?.spaces.public ?? fromEnv.public,
      publicAllowlist: (options.service?.spaces.publicAllowlist ?? fromEnv.publicAllowlist).map(
        (name) => name.toLowerCase(),
      ),
    };
    const url = options.service?.url ?? (await resolveSkillServiceUrl(env));
    if (url && (spaces.user.length > 0 || spaces.public.length > 0)) {
      const clientOptions = options.service
        ? { baseUrl: url, ...(options.service.client ?? {}) }
        : skillServiceClientOptionsFromEnv(
            url,
            env,
            timeoutSeconds ? timeoutSeconds * 1000 : undefined,
          );
      service = { client: createSkillServiceClient(clientOptions), spaces };
    }
  }
  const store = service
    ? createSkillPackageStore({
        ...(options.cacheDir
          ? { cacheDir: options.cacheDir }
          : env['KSADK_SKILL_CACHE_DIR']?.trim()
            ? { cacheDir: env['KSADK_SKILL_CACHE_DIR'].trim() }
            : {}),
        allowHashMismatch:
          options.allowHashMismatch ?? flagFromEnv(env, 'KSADK_SKILL_ALLOW_HASH_MISMATCH'),
        ...(options.archiveLimits ? { limits: options.archiveLimits } : {}),
      })
    : undefined;
  const library = createSkillLibrary({ localDir, service, store });

  const timeoutMs = wholeNumberFromEnv(env, 'KSADK_SKILL_RUNTIME_TIMEOUT', 900, 1) * 1000;
  let choice: SkillRuntimeChoice;
  let backendName = 'disabled';
  const source = ({ prompt, skillNames }: { prompt: string; skillNames: readonly string[] }) =>
    library.forRun(prompt, skillNames);
  try {
    if (options.runtime === false)
      throw new Error('the Skill Runtime is turned off for this agent');
    let runtime: SkillRuntime;
    if (isRuntime(options.runtime)) runtime = options.runtime;
    else {
      const backend =
        typeof options.runtime === 'object'
          ? options.runtime
          : createSandboxBackend(
              resolveSandboxBackend({
                purpose: 'skills',
                env,
                ...(typeof options.runtime === 'string' ? { explicit: options.runtime } : {}),
              }).name,
              { env, ...options.backendOptions },
            );
      if (backend.name === 'disabled') throw new Error('Skill Runtime is disabled');
      runtime = createSkillRuntime({
        backend,
        skills: source,
        timeoutMs,
        network: flagFromEnv(env, [
          'KSADK_SKILL_RUNTIME_ALLOW_INTERNET_ACCESS',
          'KSADK_SANDBOX_ALLOW_INTERNET_ACCESS',
        ]),
      });
    }
    backendName = runtime.backend;
    choice = { runtime, timeoutMs };
  } catch (error) {
    // A bad configuration is the programmer's to fix; a missing backend is reported to the model.
    if (KsadkError.isInstance(error) && error.code === 'invalid_config') throw error;
    choice = {
      disabled: modelSafeErrorMessage(error),
      hint: 'Set KSADK_SKILL_RUNTIME_BACKEND=local_process, bubblewrap or e2b (or a sandbox template id) to run skill workflows.',
    };
  }
  const manifestLimit =
    options.manifestLimit ?? wholeNumberFromEnv(env, 'KSADK_SKILL_MANIFEST_LIMIT', 30, 1);
  const readTools = createSkillReadTools(library);
  const executeSkills = createExecuteSkillsTool(choice);
  return {
    tools: [...readTools, executeSkills],
    readTools,
    executeSkills,
    library,
    backend: backendName,
    manifestInstruction: () => skillManifestFor(library, manifestLimit),
  };
}

/** What the skills mode puts in the assembly's skills slot. */
export interface SkillsSlotLoad {
  mode: SkillsMode;
  tools: Tool[];
  instructions: string;
  warnings: string[];
}

/**
 * A skills slot for the assembly (`loadAgentTools({ skills })`): `local` gives the skill read
 * tools; `sandbox` gives `execute_skills` and the manifest instruction (the skills fenced as data);
 * `off` gives nothing. Problems are warnings, never a silent fallback.
 *
 * @example
 * ```ts
 * const load = await loadAgentTools({
 *   skills: await loadSkillsSlot({ mode: 'sandbox', localDir: './skills', runtime: 'bubblewrap' }),
 * });
 * ```
 */
export async function loadSkillsSlot(
  options: SkillToolsetOptions & { mode: SkillsMode },
): Promise<SkillsSlotLoad> {
  const { mode, ...toolsetOptions } = options;
  if (mode === 'off') return { mode, tools: [], instructions: '', warnings: [] };
  const toolset = await createSkillToolset(toolsetOptions);
  if (mode === 'local') {
    const { entries, warnings } = await toolset.library.list();
    const tools = entries.length > 0 || toolset.library.hasRemote ? [...toolset.readTools] : [];
    return { mode, tools, instructions: '', warnings };
  }
  const manifest = await toolset.manifestInstruction().catch((error: unknown) => ({
    text: '',
    warnings: [`skill manifest skipped: ${modelSafeErrorMessage(error)}`],
  }));
  const warnings = [...manifest.warnings];
  if (toolset.backend === 'disabled')
    warnings.push(
      'skills mode is sandbox but the Skill Runtime is disabled: execute_skills will report skill_runtime_disabled',
    );
  return { mode, tools: [toolset.executeSkills], instructions: manifest.text, warnings };
}

/**
 * The assembly's skills slot from the environment: the mode from `KSADK_SKILLS_MODE` (see
 * `resolveSkillsMode`), then {@link loadSkillsSlot}. `loadAgentTools` calls it when no
 * `skills` option is given.
 */
export async function skillsSlotFromEnv(
  options: SkillToolsetOptions = {},
): Promise<SkillsSlotLoad> {
  const env = options.env ?? process.env;
  return loadSkillsSlot({ ...options, env, mode: resolveSkillsMode(env).mode });
}
