// A catalogue for the client tests: a workspace with files to read and edit, and a local skill the
// Skill Runtime runs as a child process, assembled by core's loader and served over Streamable HTTP.
import { chmod, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { ApprovalPrincipal } from '@ksadk/core';
import { type AgentToolsLoad, loadAgentTools } from '@ksadk/core/catalog';
import { type KsadkMcpPrincipal, serveKsadkMcpHttp } from '../index.js';

export interface ServedCatalogue {
  readonly base: string;
  readonly workspace: string;
  readonly load: AgentToolsLoad;
  readonly served: Awaited<ReturnType<typeof serveKsadkMcpHttp>>;
  /** Approves what the principal has pending, as a host's decision button would, until stopped. */
  hostApproves(): () => void;
  close(): Promise<void>;
}

/** Writes the workspace (`notes.md` and one `<name>.md` per client) and the skill, and serves them. */
export async function serveCatalogue(
  clients: readonly string[],
  principal: KsadkMcpPrincipal & { userId: string },
): Promise<ServedCatalogue> {
  const base = await mkdtemp(path.join(tmpdir(), 'ksadk-mcp-clients-'));
  const workspace = path.join(base, 'workspace');
  await mkdir(workspace, { recursive: true });
  await writeFile(path.join(workspace, 'notes.md'), 'milk\neggs\n');
  for (const name of clients) await writeFile(path.join(workspace, `${name}.md`), 'state: todo\n');
  const skill = path.join(base, 'skills', 'report');
  await mkdir(path.join(skill, 'scripts'), { recursive: true });
  await writeFile(
    path.join(skill, 'SKILL.md'),
    '---\nname: report\ndescription: Write the weekly report.\n---\nWrite it.\n',
  );
  const script = path.join(skill, 'scripts', 'run-workflow.sh');
  await writeFile(script, 'echo "$KSADK_WORKFLOW_PROMPT" > "$KSADK_SKILL_OUTPUT_DIR/report.md"\n');
  await chmod(script, 0o755);
  const env = {
    PATH: process.env['PATH'],
    KSADK_PROJECT_DIR: base,
    KSADK_LOCAL_SKILLS_DIR: path.join(base, 'skills'),
    KSADK_SKILL_CACHE_DIR: path.join(base, 'cache'),
    KSADK_SANDBOX_BACKEND: 'local',
    KSADK_TOOL_APPROVAL_MODE: 'ask',
  };
  const load = await loadAgentTools({
    env,
    catalog: { env, workspace: { root: workspace } },
    builtins: { include: 'focused' },
  });
  const served = await serveKsadkMcpHttp({
    tools: load.tools,
    gateway: load.gateway,
    principal,
    approvals: { waitMs: 30_000, progressEveryMs: 200 },
  });
  // The approvals API names the single-tenant account ''.
  const approver: ApprovalPrincipal = { accountId: '', userId: principal.userId };
  return {
    base,
    workspace,
    load,
    served,
    hostApproves: () => {
      let on = true;
      void (async () => {
        while (on) {
          const { items } = await load.gateway.listApprovalRequests({ principal: approver });
          for (const item of items)
            await load.gateway.approve(item.id, { principal: approver }).catch(() => undefined);
          await new Promise((resolve) => setTimeout(resolve, 50));
        }
      })();
      return () => {
        on = false;
      };
    },
    close: async () => {
      await served.close();
      await load.close();
      await rm(base, { recursive: true, force: true });
    },
  };
}
