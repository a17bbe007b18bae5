import type { Tool } from '@ksadk/core';
import {
  describeToolSchemas,
  SCHEMA_TARGETS,
  type SchemaTarget,
  type ToolSchemaReport,
} from '@ksadk/core/schema';
import type { Terminal } from './terminal.js';

/** The frameworks `--framework` names (`langchain` and friends), as core's report names them. */
export function targetsOf(framework: string): readonly SchemaTarget[] {
  return framework === 'all'
    ? SCHEMA_TARGETS
    : SCHEMA_TARGETS.filter((target) => target === framework);
}

/** One tool as the `--json` reports give it: its names, risk, and each framework's schema. */
export interface ToolReport {
  readonly name: string;
  /** The name the tool's source gave it (an MCP server's own name), when it differs. */
  readonly originalName?: string;
  readonly source?: string;
  readonly group: string;
  readonly riskLevel: string;
  readonly description: string;
  readonly schemas: Partial<ToolSchemaReport['targets']>;
  readonly problems: readonly string[];
}

/** A tool's report for the chosen frameworks. */
export function toolReport(
  tool: Tool,
  targets: readonly SchemaTarget[],
  source?: string,
): ToolReport {
  const report = describeToolSchemas(tool);
  const original = tool.kind === 'json-schema' ? tool.originalName : undefined;
  return {
    name: tool.name,
    ...(original && original !== tool.name ? { originalName: original } : {}),
    ...(source ? { source } : {}),
    group: tool.group,
    riskLevel: tool.policy.riskLevel,
    description: tool.description,
    schemas: Object.fromEntries(targets.map((target) => [target, report.targets[target]])),
    problems: report.problems.filter((problem) =>
      targets.some((target) => problem.startsWith(`${target}:`)),
    ),
  };
}

/** A tool's report as text: its names and risk, then each framework's verdict and schema. */
export function printToolReport(terminal: Terminal, report: ToolReport, index?: number): void {
  const { paint } = terminal;
  const mapped = report.originalName ? paint('dim', ` (← ${report.originalName})`) : '';
  const where = report.source ? paint('dim', ` · ${report.source}`) : '';
  terminal.line(
    `${index !== undefined ? `${index + 1}. ` : ''}${paint('bold', report.name)}${mapped} ${paint(
      report.riskLevel === 'low' ? 'ok' : report.riskLevel === 'medium' ? 'warn' : 'bad',
      report.riskLevel,
    )}${where}`,
  );
  for (const [target, schema] of Object.entries(report.schemas)) {
    if (!schema) continue;
    if (!schema.ok) {
      terminal.line(`   ${target}: ${paint('bad', `fails — ${schema.problem}`)}`);
      continue;
    }
    const verdict =
      target === 'openai'
        ? schema.strict
          ? paint('ok', 'strict')
          : paint('warn', `not strict — ${schema.reason ?? 'no reason given'}`)
        : target === 'langchain' && schema.zod
          ? paint('ok', 'the zod object')
          : paint('ok', 'ok');
    terminal.line(`   ${target}: ${verdict}`);
    for (const line of JSON.stringify(schema.schema, null, 2).split('\n'))
      terminal.line(`      ${paint('dim', line)}`);
  }
}
