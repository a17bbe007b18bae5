import { loadAgentTools } from '@ksadk/core/catalog';
import type { CommandContext } from '../command-context.js';
import { printToolReport, targetsOf, toolReport } from '../schema-lines.js';
import { EXIT } from '../terminal.js';

interface ToolsOptions {
  include?: string;
  profile?: string;
  framework: string;
  json?: boolean;
}

/** The variables that choose built-ins: with none of them and no flag, the focused set is shown. */
const BUILTIN_VARIABLES = ['KSADK_BUILTIN_TOOLS_MODE', 'KSADK_BUILTIN_TOOLS_PROFILE'];

/** `ksadk tools`: what `loadAgentTools` gives an agent, in order, with each framework's schema. */
export async function toolsCommand(
  options: ToolsOptions,
  { terminal, env }: CommandContext,
): Promise<number> {
  const chosen =
    options.include !== undefined ||
    options.profile !== undefined ||
    BUILTIN_VARIABLES.some((name) => (env[name] ?? '').trim() !== '');
  const builtins = options.include
    ? { include: options.include, ...(options.profile ? { profile: options.profile } : {}) }
    : options.profile
      ? { mode: 'direct', profile: options.profile }
      : chosen
        ? undefined
        : { include: 'focused' };
  const load = await terminal.progress(
    'loading the tools (memory, skills, built-ins, MCP servers)',
    () => loadAgentTools({ env, ...(builtins ? { builtins } : {}) }),
  );
  try {
    const targets = targetsOf(options.framework);
    const reports = load.tools.map((tool) =>
      toolReport(tool, targets, load.assembly.sources[tool.name]),
    );
    const selection = chosen
      ? undefined
      : 'focused (nothing chose built-ins: --include, --profile or KSADK_BUILTIN_TOOLS_MODE)';
    if (options.json) {
      terminal.json({
        tools: reports,
        warnings: load.warnings,
        ...(selection ? { builtins: selection } : {}),
      });
    } else {
      if (selection) terminal.note(terminal.paint('dim', `built-ins: ${selection}`, 'err'));
      if (reports.length === 0)
        terminal.line('No tools: nothing is configured. Try --include focused.');
      for (const [index, report] of reports.entries()) printToolReport(terminal, report, index);
      for (const warning of load.warnings)
        terminal.note(terminal.paint('warn', `warning: ${warning}`, 'err'));
    }
    // Problems: a schema a chosen framework cannot take, or what the load warned about.
    const fails = reports.some((report) =>
      Object.values(report.schemas).some((schema) => schema && !schema.ok),
    );
    return fails || load.warnings.length > 0 ? EXIT.problems : EXIT.ok;
  } finally {
    await load.close();
  }
}
