import { Command, CommanderError, Option } from 'commander';
import type { CommandContext, KsadkIo } from './command-context.js';

const FRAMEWORKS = ['openai', 'gemini', 'langchain', 'anthropic', 'ai-sdk', 'all'];

/** `--account`, `--user`, `--admin` and `--store` (the approvals and the console). */
function principalOptions(command: Command): Command {
  return command
    .option(
      '--store <url>',
      'the shared store: redis://… or postgres://… (default: KSADK_APPROVAL_STORE)',
    )
    .option('--account <id>', "whose requests: this account's (default: the default account)")
    .option('--user <id>', "… and only this user's")
    .option('--admin', "every account's (an operator's view; said in the output)");
}

const examples = (lines: string[]) =>
  `\nExamples:\n${lines.map((line) => `  $ ${line}`).join('\n')}\n`;

/**
 * The `ksadk` program: every command, its options and its help. Commands load what they need when
 * they run, so `--help` stays fast.
 */
function program(
  io: KsadkIo,
  run: (action: (context: CommandContext) => Promise<number>) => Promise<void>,
): Command {
  const root = new Command('ksadk')
    .description('KsADK from the command line: tools, MCP servers, skills, approvals, the console.')
    .version('0.1.0', '-v, --version')
    .option(
      '--no-color',
      'no colours (also: the NO_COLOR variable, or output that is not a terminal)',
    )
    .showHelpAfterError('(ksadk --help lists the commands)')
    .addHelpText(
      'after',
      `${examples([
        'ksadk tools --framework openai',
        'ksadk mcp probe --env',
        'ksadk skills validate ./skills/*',
        'ksadk approvals list --store redis://127.0.0.1:6379 --admin',
      ])}\nExit codes: 0 done, 1 problems found, 2 usage.`,
    );

  root
    .command('tools')
    .description(
      'the tools a loader gives an agent, in load order, with the schema each framework gets',
    )
    .option(
      '--include <list>',
      'built-in tools and groups, comma-separated (focused, workspace, web, …)',
    )
    .option('--profile <name>', 'a built-in tools profile: default or coding')
    .addOption(
      new Option('--framework <name>', 'whose schemas to show').choices(FRAMEWORKS).default('all'),
    )
    .option('--json', 'the report as JSON (see docs/cli.md)')
    .addHelpText(
      'after',
      `\nMemory, skills and MCP servers come from the KSADK_* environment, as for every loader; with no\nbuilt-ins chosen (--include, --profile, KSADK_BUILTIN_TOOLS_MODE) the focused set is shown.\n${examples(
        [
          'ksadk tools --framework openai',
          'ksadk tools --include focused,web_fetch --framework gemini --json',
          'KSADK_MCP_SERVERS=\'[{"name":"docs","url":"http://127.0.0.1:3000/mcp"}]\' ksadk tools',
        ],
      )}`,
    )
    .action((options) =>
      run(async (context) =>
        (await import('./commands/tools-command.js')).toolsCommand(options, context),
      ),
    );

  const mcp = root.command('mcp').description('MCP servers');
  mcp
    .command('probe')
    .description(
      'connect to MCP servers and report their tools, the schema each framework gets, problems and timings',
    )
    .argument('[server...]', 'only these servers (by name)')
    .option('--config <file>', 'a JSON file: a list of servers or { "mcpServers": { … } }')
    .option('--env', 'the servers of KSADK_MCP_SERVERS (the default without --config)')
    .option('--call <tool>', 'then run one call of this tool through the gateway')
    .option('--args <json>', 'the call’s arguments, a JSON object', '{}')
    .option('--timeout <ms>', 'how long each server may take to answer', '15000')
    .option('--json', 'the report as JSON (see docs/cli.md)')
    .addHelpText(
      'after',
      `\nA call that needs approval asks on the terminal (without one it is not run: exit 1).\n${examples(
        [
          'ksadk mcp probe --env',
          'ksadk mcp probe --config mcp.json github',
          'ksadk mcp probe --config mcp.json --call search_issues --args \'{"query":"bug"}\'',
        ],
      )}`,
    )
    .action((servers, options) =>
      run(async (context) =>
        (await import('./commands/mcp-command.js')).mcpProbeCommand(servers, options, context),
      ),
    );

  const skills = root.command('skills').description('skills: validate, list, search, show, pack');
  skills
    .command('validate')
    .description('validate skill folders strictly (or every skill of a folder of skills)')
    .argument('<dir...>', 'skill folders, or folders of skills')
    .option('--json', 'the problems as JSON')
    .addHelpText(
      'after',
      `\nOne line per problem: file, field, what is wrong. Exit 1 when there is any.\n${examples(['ksadk skills validate ./skills/report', 'ksadk skills validate ./skills'])}`,
    )
    .action((dirs, options) =>
      run(async (context) =>
        (await import('./commands/skills-command.js')).validateCommand(dirs, options, context),
      ),
    );
  for (const [name, description] of [
    ['list', 'the skills of the local folder and the configured skill spaces'],
    ['search', 'skills that match a query'],
    ['show', 'one skill: its SKILL.md, resources and where it comes from'],
  ] as const) {
    const command = skills
      .command(name)
      .description(description)
      .option('--dir <dir>', 'a local skills folder (default: KSADK_LOCAL_SKILLS_DIR)')
      .option('--json', 'as JSON');
    if (name === 'search') command.argument('<query>', 'what to look for');
    if (name === 'show') command.argument('<name>', "the skill's name");
    command
      .addHelpText(
        'after',
        examples([
          `ksadk skills ${name}${name === 'search' ? ' pdf' : name === 'show' ? ' pdf-forms' : ''} --dir ./skills`,
        ]),
      )
      .action((...args: unknown[]) =>
        run(async (context) =>
          (await import('./commands/skills-command.js')).readCommand(name, args, context),
        ),
      );
  }
  skills
    .command('pack')
    .description('validate a skill and pack it into a verified zip archive, with its sha256')
    .argument('<dir>', 'the skill folder')
    .option('--out <file>', 'where to write the archive (default: <name>.zip here)')
    .option('--json', 'the result as JSON')
    .addHelpText(
      'after',
      examples([
        'ksadk skills pack ./skills/report',
        'ksadk skills pack ./skills/report --out dist/report.zip',
      ]),
    )
    .action((dir, options) =>
      run(async (context) =>
        (await import('./commands/skill-pack.js')).packCommand(dir, options, context),
      ),
    );

  const approvals = root
    .command('approvals')
    .description('approval requests on the shared store: list, show, decide, revoke, audit');
  const decideHelp = examples([
    'ksadk approvals list --store redis://127.0.0.1:6379 --account acme',
    'ksadk approvals approve appr_… --account acme --reason "checked"',
    'ksadk approvals list --admin --status all --json',
  ]);
  principalOptions(
    approvals
      .command('list')
      .description('requests, newest first')
      .addOption(
        new Option('--status <status>', 'which ones')
          .choices(['pending', 'approved', 'rejected', 'consumed', 'expired', 'all'])
          .default('pending'),
      )
      .option('--session <id>', "one session's")
      .option('--tool <name>', "one tool's")
      .option('--limit <n>', 'at most this many (up to 500)', '50')
      .option('--json', 'as JSON'),
  )
    .addHelpText('after', decideHelp)
    .action((options) =>
      run(async (context) =>
        (await import('./commands/approvals-command.js')).listCommand(options, context),
      ),
    );
  for (const [name, description] of [
    ['show', 'one request, with its full arguments'],
    [
      'approve',
      'approve a pending request (once, edited with --args, or --always for the session)',
    ],
    ['reject', 'reject a pending request (the model is told --reason)'],
    ['revoke', 'revoke a standing grant or rejection by its id'],
  ] as const) {
    const command = principalOptions(
      approvals
        .command(name)
        .description(description)
        .argument('<id>', name === 'revoke' ? 'the standing grant' : 'the request (appr_…)')
        .option('--json', 'as JSON'),
    );
    if (name === 'approve' || name === 'reject' || name === 'revoke')
      command.option('--reason <text>', 'why');
    if (name === 'approve' || name === 'reject')
      command.option('--always', 'also for the next calls of the tool in that session');
    if (name === 'approve')
      command.option('--args <json>', 'approve with these arguments instead of the model’s');
    command
      .addHelpText('after', decideHelp)
      .action((id, options) =>
        run(async (context) =>
          (await import('./commands/approvals-command.js')).decideCommand(
            name,
            id,
            options,
            context,
          ),
        ),
      );
  }
  principalOptions(
    approvals
      .command('audit')
      .description('the audit log: every decision and use, newest first')
      .option('--since <time>', 'only records from then (ISO date or epoch ms)')
      .option('--limit <n>', 'at most this many (up to 500)', '50')
      .option('--json', 'as JSON'),
  )
    .addHelpText('after', decideHelp)
    .action((options) =>
      run(async (context) =>
        (await import('./commands/approvals-command.js')).auditCommand(options, context),
      ),
    );

  principalOptions(
    root
      .command('console')
      .description('start the KsADK console on the shared stores (it prints the address to open)')
      .option('--port <n>', 'listen on 127.0.0.1:n (default: any free port)', '0')
      .option('--skills <dir>', 'a skills folder to show (default: KSADK_LOCAL_SKILLS_DIR)'),
  )
    .addHelpText('after', examples(['ksadk console --store redis://127.0.0.1:6379 --admin']))
    .action((options) =>
      run(async (context) =>
        (await import('./commands/console-command.js')).consoleCommand(options, context),
      ),
    );

  root.configureOutput({
    writeOut: (text) => void io.stdout.write(text),
    writeErr: (text) => void io.stderr.write(text),
  });
  for (const command of [root, ...allCommands(root)]) command.exitOverride();
  return root;
}

function allCommands(command: Command): Command[] {
  return command.commands.flatMap((child) => [child, ...allCommands(child)]);
}

/**
 * Runs `ksadk` with these arguments; resolves with the exit code: 0 done, 1 problems found (or the
 * operation failed: the reason is printed, never a secret), 2 a usage error. Long-running commands
 * (`ksadk console`) resolve once they are up and keep the process alive.
 */
export async function main(
  argv: readonly string[],
  io: KsadkIo = {
    env: process.env,
    stdout: process.stdout,
    stderr: process.stderr,
    stdin: process.stdin,
  },
): Promise<number> {
  let code = 0;
  const run = async (action: (context: CommandContext) => Promise<number>) => {
    const { createTerminal } = await import('./terminal.js');
    const color = !argv.includes('--no-color');
    const terminal = createTerminal({ ...io, color });
    try {
      code = await action({ terminal, env: io.env });
    } catch (error) {
      const { shown } = await import('./terminal.js');
      terminal.note(`ksadk: ${shown(error instanceof Error ? error.message : String(error))}`);
      code = 1;
    }
    // `--json` always answers JSON on stdout: a failure that printed nothing there says what went wrong.
    if (argv.includes('--json') && code !== 0 && !terminal.wroteOut())
      terminal.json({ ok: false, exitCode: code, problems: terminal.notes() });
  };
  try {
    await program(io, run).parseAsync([...argv], { from: 'user' });
  } catch (error) {
    if (error instanceof CommanderError) {
      // Help asked for, or the version: done. No command, a bad option or argument: usage.
      if (error.code === 'commander.helpDisplayed' || error.code === 'commander.version') return 0;
      return 2;
    }
    throw error;
  }
  return code;
}
