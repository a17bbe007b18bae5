import { z } from 'zod';
import { resolveSandboxBackend } from '../sandbox/resolve-backend.js';
import { defineTool } from '../tool/define-tool.js';
import type { Tool } from '../tool/tool.js';

/** What `component_status` reports on: the catalogue's bound groups and their tool names. */
export interface ComponentStatusSource {
  /** Bound built-in groups and their tools, in catalogue order. */
  toolsByGroup(): Record<string, string[]>;
  /** The sandbox tools' backend, when the sandbox group is bound. */
  sandboxBackend?: () => { name: string; isolated: boolean } | undefined;
  env: NodeJS.ProcessEnv;
}

const present = (value: string | undefined): boolean => value !== undefined && value.trim() !== '';

function skillRuntimeBackend(env: NodeJS.ProcessEnv): string {
  try {
    return resolveSandboxBackend({ purpose: 'skills', env }).name;
  } catch {
    return 'invalid_configuration';
  }
}

const isolation = (backend: string): string =>
  backend === 'bubblewrap' || backend === 'e2b'
    ? 'enabled'
    : backend === 'local_process'
      ? 'enabled_not_isolated'
      : 'not_enabled';

/**
 * `component_status`: which platform components this agent actually has — the model name, the
 * bound tool groups and their tools, and whether a knowledge base, long-term memory, skill
 * spaces, isolated execution or sandbox tools are configured. Reports only what is bound;
 * no host paths or secrets.
 */
export function componentStatusTool(source: ComponentStatusSource): Tool {
  return defineTool({
    name: 'component_status',
    description:
      'Report which platform components this agent has right now: model, workspace, skills, sandbox, web, memory and knowledge base — bound or not — and the tools each provides. Use it to check what you can do before planning. Read-only.',
    input: z.object({}),
    group: 'platform',
    execute: () => {
      const env = source.env;
      const groups = source.toolsByGroup();
      const bound = (group: string): boolean => (groups[group]?.length ?? 0) > 0;
      const components: Record<string, unknown> = {};
      if (bound('workspace')) {
        components['workspace'] = {
          root: 'workspace',
          tools: groups['workspace'],
          boundary:
            'Tools read and write only inside the workspace root; paths are relative to it and symlinks never lead outside it.',
          editing_model:
            'Whole-file writes, exact-text edits of files read first (edit_workspace_file, multi_edit_workspace_file), and lightweight lint.',
        };
      }
      for (const group of Object.keys(groups)) {
        if (group !== 'workspace' && group !== 'platform' && bound(group))
          components[group] = { tools: groups[group] };
      }
      const sandbox = bound('sandbox') ? source.sandboxBackend?.() : undefined;
      if (sandbox) {
        components['sandbox'] = {
          tools: groups['sandbox'],
          backend: sandbox.name,
          enabled: sandbox.name !== 'disabled',
          isolated: sandbox.isolated,
        };
      }
      return {
        ok: true,
        summary: {
          model: env['OPENAI_MODEL_NAME']?.trim() || env['MODEL_NAME']?.trim() || null,
          tool_groups: Object.keys(groups).filter(bound),
          knowledge_base_bound: present(env['KSADK_KB_DATASET_ID']),
          long_term_memory_bound:
            present(env['KSADK_LTM_NAMESPACE']) || present(env['KSADK_LTM_BACKEND']),
          skill_space_bound: bound('skill'),
          // The same resolver execute_skills runs on, so the report is what runs.
          skill_runtime_backend: skillRuntimeBackend(env),
          isolated_execution: isolation(skillRuntimeBackend(env)),
          // The backend the sandbox tools run on (not merely whether the group is bound).
          sandbox_direct_tools:
            !sandbox || sandbox.name === 'disabled'
              ? 'not_enabled'
              : sandbox.isolated
                ? 'enabled'
                : 'enabled_not_isolated',
        },
        components,
      };
    },
  });
}
