import { readFile } from 'node:fs/promises';
import { createToolGateway, isApprovalRequired, type Tool, type ToolResult } from '@ksadk/core';
import {
  createMcpToolset,
  type McpServerConfig,
  type McpToolset,
  parseMcpServerConfigs,
} from '@ksadk/core/mcp';
import type { CommandContext } from '../command-context.js';
import { printToolReport, type ToolReport, targetsOf, toolReport } from '../schema-lines.js';
import { EXIT, shown } from '../terminal.js';

interface ProbeOptions {
  config?: string;
  env?: boolean;
  call?: string;
  args: string;
  timeout: string;
  json?: boolean;
}

/** One server as the probe found it. */
interface ServerReport {
  readonly name: string;
  readonly ok: boolean;
  /** How long connecting and listing took. */
  readonly ms: number;
  readonly transport: string | null;
  readonly tools: ToolReport[];
  /** Tools the server offers that were left out, and why. */
  readonly problems: string[];
  readonly error?: string;
  /** The server's stderr (stdio servers), when it failed. */
  readonly stderrTail?: string;
}

/** The servers to probe: `--config FILE`, else `KSADK_MCP_SERVERS`. */
async function configsOf(options: ProbeOptions, env: NodeJS.ProcessEnv) {
  if (options.config) {
    let raw: unknown;
    try {
      raw = JSON.parse(await readFile(options.config, 'utf8'));
    } catch (error) {
      throw new Error(
        `--config ${options.config}: ${error instanceof SyntaxError ? 'not JSON' : 'cannot be read'}`,
      );
    }
    return parseMcpServerConfigs(raw, options.config);
  }
  return parseMcpServerConfigs(env['KSADK_MCP_SERVERS'] ?? '', 'KSADK_MCP_SERVERS');
}

/** Connects to one server and lists its tools, within `timeoutMs`. */
async function probe(
  config: McpServerConfig,
  timeoutMs: number,
): Promise<{ toolset: McpToolset; report: ServerReport; tools: Tool[] }> {
  const toolset = createMcpToolset({ ...config, timeoutMs } as McpServerConfig);
  const started = performance.now();
  let timer: NodeJS.Timeout | undefined;
  try {
    const tools = await Promise.race([
      toolset.tools(),
      new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error(`no answer within ${timeoutMs} ms`)), timeoutMs);
      }),
    ]);
    const diagnostics = toolset.diagnostics();
    return {
      toolset,
      tools,
      report: {
        name: config.name,
        ok: true,
        ms: Math.round(performance.now() - started),
        transport: diagnostics.transport ?? null,
        tools: [],
        problems: toolset.problems.map((problem) => `${problem.tool}: ${problem.message}`),
      },
    };
  } catch (error) {
    const diagnostics = toolset.diagnostics();
    return {
      toolset,
      tools: [],
      report: {
        name: config.name,
        ok: false,
        ms: Math.round(performance.now() - started),
        transport: diagnostics.transport ?? null,
        tools: [],
        problems: [],
        error: (error instanceof Error ? error.message : String(error)).slice(0, 500),
        ...(diagnostics.stderrTail ? { stderrTail: diagnostics.stderrTail.slice(-4000) } : {}),
      },
    };
  } finally {
    clearTimeout(timer);
  }
}

/**
 * One call through the gateway; a call that needs approval asks on the terminal (approved: it runs
 * once with the grant; declined: it is rejected), or, without a terminal, is not run.
 */
async function callThroughGateway(
  tool: Tool,
  args: unknown,
  { terminal, env }: CommandContext,
): Promise<{ result: ToolResult; asked: boolean; approved?: boolean }> {
  const gateway = createToolGateway({ env });
  // Progress while the tool runs, never while the question waits for an answer.
  const invoke = (options: Parameters<typeof gateway.invoke>[2]) =>
    terminal.progress(`calling ${tool.name}`, () => gateway.invoke(tool, args, options));
  const first = await invoke({ callId: 'ksadk-cli-call' });
  if (!isApprovalRequired(first)) return { result: first, asked: false };
  const request = first.approval_request;
  const answer = await terminal.ask(
    `${tool.name} needs approval (${request.risk_level} risk${request.why ? `: ${request.why}` : ''}).\nArguments: ${JSON.stringify(request.arguments).slice(0, 2000)}\nRun it?`,
  );
  if (answer === undefined) return { result: first, asked: true };
  if (!answer) {
    await gateway.reject(request.id, { reason: 'Declined on the terminal.' });
    return { result: await invoke({ callId: 'ksadk-cli-call' }), asked: true, approved: false };
  }
  const grant = await gateway.approve(request.id, { reason: 'Approved on the terminal.' });
  return {
    result: await invoke({ callId: 'ksadk-cli-call', approval: grant }),
    asked: true,
    approved: true,
  };
}

/** `ksadk mcp probe`: each server's tools, schemas, problems and timing; optionally one call. */
export async function mcpProbeCommand(
  names: string[],
  options: ProbeOptions,
  context: CommandContext,
): Promise<number> {
  const { terminal } = context;
  const timeoutMs = Number(options.timeout);
  if (!Number.isInteger(timeoutMs) || timeoutMs < 1) {
    terminal.note('--timeout must be a positive number of milliseconds.');
    return EXIT.usage;
  }
  let args: unknown;
  try {
    args = JSON.parse(options.args);
  } catch {
    terminal.note('--args must be a JSON object.');
    return EXIT.usage;
  }
  const { configs, problems } = await configsOf(options, context.env);
  const configProblems = problems.map((problem) => problem.message);
  const chosen =
    names.length > 0 ? configs.filter((config) => names.includes(config.name)) : configs;
  for (const name of names)
    if (!configs.some((config) => config.name === name))
      configProblems.push(`no server named ${name}`);
  if (configs.length === 0 && configProblems.length === 0)
    configProblems.push(
      options.config
        ? `${options.config} names no server`
        : 'KSADK_MCP_SERVERS names no server (use --config FILE)',
    );
  const probed = await terminal.progress(`connecting to ${chosen.length} MCP server(s)`, () =>
    Promise.all(chosen.map((config) => probe(config, timeoutMs))),
  );
  try {
    const targets = targetsOf('all');
    for (const entry of probed)
      entry.report.tools.push(...entry.tools.map((tool) => toolReport(tool, targets)));
    let call: Awaited<ReturnType<typeof callThroughGateway>> | undefined;
    let callProblem: string | undefined;
    if (options.call) {
      const tool = probed
        .flatMap((entry) => entry.tools)
        .find(
          (candidate) =>
            candidate.name === options.call ||
            (candidate.kind === 'json-schema' && candidate.originalName === options.call),
        );
      if (!tool) callProblem = `no tool named ${options.call} on the servers probed`;
      else call = await callThroughGateway(tool, args, context);
    }
    const reports = probed.map((entry) => entry.report);
    if (options.json) {
      terminal.json({
        servers: reports,
        problems: configProblems,
        ...(call ? { call } : {}),
        ...(callProblem ? { callProblem } : {}),
      });
    } else {
      for (const problem of configProblems) terminal.line(terminal.paint('bad', `✗ ${problem}`));
      for (const report of reports) {
        terminal.line(
          `${report.ok ? terminal.paint('ok', '✓') : terminal.paint('bad', '✗')} ${terminal.paint('bold', report.name)} ${terminal.paint('dim', `${report.transport ?? 'not connected'} · ${report.ms} ms · ${report.tools.length} tool(s)`)}`,
        );
        if (report.error) terminal.line(`  ${terminal.paint('bad', report.error)}`);
        if (report.stderrTail) {
          terminal.line(terminal.paint('dim', '  stderr:'));
          for (const line of report.stderrTail.trimEnd().split('\n').slice(-20))
            terminal.line(`    ${shown(line)}`);
        }
        for (const problem of report.problems)
          terminal.line(`  ${terminal.paint('warn', `left out: ${problem}`)}`);
        for (const [index, tool] of report.tools.entries()) printToolReport(terminal, tool, index);
      }
      if (callProblem) terminal.line(terminal.paint('bad', callProblem));
      if (call) {
        if (call.asked && call.approved === undefined)
          terminal.line(
            terminal.paint(
              'warn',
              `${options.call} needs approval and there is no terminal to ask on: not run.`,
            ),
          );
        terminal.line(shown(JSON.stringify(call.result, null, 2)));
      }
    }
    // With --call, the call decides: it ran and answered ok. Else any problem of any server.
    if (options.call) return call?.result.ok === true ? EXIT.ok : EXIT.problems;
    const failed =
      configProblems.length > 0 ||
      reports.some((report) => !report.ok || report.problems.length > 0);
    return failed ? EXIT.problems : EXIT.ok;
  } finally {
    await Promise.allSettled(probed.map((entry) => entry.toolset.close()));
  }
}
