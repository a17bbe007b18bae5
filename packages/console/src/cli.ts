import { parseArgs } from 'node:util';
import type { ApprovalPrincipal } from '@ksadk/core';
import { serveKsadkConsoleFromEnv } from './console-from-env.js';

const HELP = `ksadk-console: the KsADK console — approvals, calls, skills, connected accounts, MCP servers —
in the browser, on the stores your agents share.

Options:
  --port N        listen on 127.0.0.1:N (default: any free port)
  --store URL     the shared store: redis://… or postgres://… (default: KSADK_APPROVAL_STORE)
  --skills DIR    a folder of skills to show (default: KSADK_LOCAL_SKILLS_DIR)
  --account ID    whose approvals and calls to show (default: the default account)
  --user ID       … and only this user's
  --admin         every account's (an operator's view)
  --help          this text

The console listens on 127.0.0.1 only and prints the address to open, with its token.
MCP servers come from KSADK_MCP_SERVERS; the result store from KSADK_TOOL_RESULT_DIR.

Examples:
  KSADK_APPROVAL_STORE=redis://127.0.0.1:6379 ksadk-console
  ksadk-console --store postgres://app@db/ksadk --admin --port 4000`;

/** Who the console shows, from the flags. */
function principalOf(values: {
  admin?: boolean;
  account?: string;
  user?: string;
}): ApprovalPrincipal {
  if (values.admin) return { admin: true };
  return { accountId: values.account ?? '', ...(values.user ? { userId: values.user } : {}) };
}

/**
 * Runs `ksadk-console` with these arguments. Resolves once the console listens (it then runs until
 * the process is stopped) with the exit code: 0, 1 when it cannot start (a bad store, a taken
 * port: the reason is printed, never a secret), or 2 for a usage error.
 */
export async function main(argv: readonly string[], env = process.env): Promise<number> {
  try {
    return await run(argv, env);
  } catch (error) {
    console.error(`ksadk-console: ${error instanceof Error ? error.message : String(error)}`);
    return 1;
  }
}

async function run(argv: readonly string[], env: NodeJS.ProcessEnv): Promise<number> {
  let values: Record<string, string | boolean | undefined>;
  try {
    ({ values } = parseArgs({
      args: [...argv],
      strict: true,
      options: {
        port: { type: 'string' },
        store: { type: 'string' },
        skills: { type: 'string' },
        account: { type: 'string' },
        user: { type: 'string' },
        admin: { type: 'boolean' },
        help: { type: 'boolean' },
      },
    }));
  } catch (error) {
    console.error(`${error instanceof Error ? error.message : String(error)}\n\n${HELP}`);
    return 2;
  }
  if (values['help']) {
    console.log(HELP);
    return 0;
  }
  const port = values['port'] === undefined ? 0 : Number(values['port']);
  if (!Number.isInteger(port) || port < 0 || port > 65_535) {
    console.error('--port must be a port number (0 for any free one).');
    return 2;
  }
  if (values['admin'] && (values['account'] || values['user'])) {
    console.error('--admin shows every account: give it without --account and --user.');
    return 2;
  }
  const served = await serveKsadkConsoleFromEnv({
    env,
    port,
    principal: principalOf(values as { admin?: boolean; account?: string; user?: string }),
    ...(values['store'] ? { store: String(values['store']) } : {}),
    ...(values['skills'] ? { skillsDir: String(values['skills']) } : {}),
  });
  for (const warning of served.warnings) console.error(warning);
  const stop = async () => {
    await served.close();
    process.exit(0);
  };
  process.once('SIGINT', () => void stop());
  process.once('SIGTERM', () => void stop());
  console.log(`KsADK console: ${served.url}`);
  return 0;
}
