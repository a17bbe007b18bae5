import { z } from 'zod';
import { getInvocationContextOrEmpty } from '../../context/invocation-context.js';
import { defineTool } from '../../tool/define-tool.js';
import type { Tool } from '../../tool/tool.js';
import { skillsFailure } from '../failure.js';
import type { SkillRuntime } from '../runtime/skill-runtime.js';
import { normalizeSkillNames } from '../skill-matching.js';
import { skillFailure } from './skill-read-tools.js';

/** How `execute_skills` reaches a runtime: a ready one, or why there is none. */
export type SkillRuntimeChoice =
  | { runtime: SkillRuntime; timeoutMs: number }
  | { disabled: string; hint: string };

/**
 * `execute_skills` (group `skill`, high risk): runs a skill workflow in the Skill Runtime with the
 * user's original request and the exact skill names. Gated like every high-risk tool; the result
 * always carries `ok`, and its output is budgeted like any tool output.
 */
export function createExecuteSkillsTool(choice: SkillRuntimeChoice): Tool {
  const timeoutMs = 'runtime' in choice ? choice.timeoutMs + 30_000 : 30_000;
  return defineTool({
    name: 'execute_skills',
    description:
      "Run a skill's workflow (scripts/run-workflow.sh) in the Skill Runtime: pass the user's original request as workflow_prompt and the exact skill name(s) in skill_names. Use it when a listed skill matches the task and needs to run code; it needs the user's approval. Returns ok, the workflow's status, output files and command output.",
    input: z.object({
      workflow_prompt: z.string().min(1).max(20_000),
      skill_names: z.union([z.string().max(2000), z.array(z.string().max(200)).max(20)]).optional(),
    }),
    group: 'skill',
    policy: {
      riskLevel: 'high',
      sideEffects: ['code_execution'],
      approvalScopes: ['skill_runtime'],
    },
    timeoutMs,
    boundary: 'skill_runtime',
    resultBudget: { fields: ['stdout', 'stderr'] },
    execute: async ({ workflow_prompt, skill_names }, context) => {
      if (!('runtime' in choice))
        return skillsFailure('skill_runtime_disabled', choice.disabled, { hint: choice.hint });
      try {
        const invocation = getInvocationContextOrEmpty();
        return await choice.runtime.run({
          prompt: workflow_prompt,
          skillNames: normalizeSkillNames(skill_names),
          signal: context.signal,
          ...(invocation.accountId ? { accountId: invocation.accountId } : {}),
          ...(invocation.sessionId ? { sessionId: invocation.sessionId } : {}),
        });
      } catch (error) {
        return skillFailure(error, {
          execution_context: `skill-runtime/${choice.runtime.backend}`,
        });
      }
    },
  });
}
