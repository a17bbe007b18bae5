/**
 * Skills and the Skill Runtime (`@ksadk/core/skills`): SKILL.md parsing and validation, local
 * skills, the Skill Service client, the verified package cache, the skill tools and the runtime
 * that runs skill workflows on a sandbox backend.
 *
 * @packageDocumentation
 */

export {
  type LocalSkillsLoad,
  loadLocalSkills,
  loadSkillDirectory,
  type Skill,
  type SkillResources,
} from './local-skills.js';
export {
  createSkillPackageStore,
  type SkillPackage,
  type SkillPackageStore,
  type SkillPackageStoreOptions,
} from './package-store.js';
export type { SkillRuntimeResult, WorkflowCommand } from './runtime/runtime-result.js';
export {
  createSkillRuntime,
  type SkillRunRequest,
  type SkillRuntime,
  type SkillRuntimeOptions,
  type SkillSource,
} from './runtime/skill-runtime.js';
export {
  createSkillServiceClient,
  type SkillServiceClient,
  type SkillServiceClientOptions,
} from './service-client.js';
export {
  createSkillLibrary,
  type LoadedSkill,
  type SkillEntry,
  type SkillLibrary,
  type SkillLibraryOptions,
} from './skill-library.js';
export {
  type ParsedSkillMd,
  parseSkillMd,
  type SkillFrontmatter,
  SkillMdError,
  type SkillValidation,
  validateSkillMd,
} from './skill-md.js';
export type { ContentHash, SkillRef, SkillSpace } from './skill-ref.js';
export { SkillServiceError } from './skill-service-error.js';
export type { SkillsMode } from './skills-mode.js';
export {
  createSkillToolset,
  loadSkillsSlot,
  type SkillsSlotLoad,
  type SkillToolset,
  type SkillToolsetOptions,
  skillsSlotFromEnv,
} from './tools/index.js';
export { validateSkill } from './validate-skill.js';
export { type ArchiveLimits, extractSkillArchive } from './zip-extract.js';
