import { serveKsadkConsoleFromEnv } from '@ksadk/console';
import type { CommandContext } from '../command-context.js';
import { describePrincipal, type PrincipalFlags, principalOf } from '../principal-flags.js';
import { EXIT, shown } from '../terminal.js';

/** `ksadk console`: the KsADK console on the shared stores; runs until the process is stopped. */
export async function consoleCommand(
  options: PrincipalFlags & { store?: string; port: string; skills?: string },
  { terminal, env }: CommandContext,
): Promise<number> {
  const principal = principalOf(options);
  if ('problem' in principal) {
    terminal.note(principal.problem);
    return EXIT.usage;
  }
  const port = Number(options.port);
  if (!Number.isInteger(port) || port < 0 || port > 65_535) {
    terminal.note('--port must be a port number (0 for any free one).');
    return EXIT.usage;
  }
  const served = await terminal.progress('starting the console', () =>
    serveKsadkConsoleFromEnv({
      env,
      port,
      principal,
      ...(options.store ? { store: options.store } : {}),
      ...(options.skills ? { skillsDir: options.skills } : {}),
    }),
  );
  for (const warning of served.warnings) terminal.note(terminal.paint('warn', warning, 'err'));
  const stop = async () => {
    await served.close();
    process.exit(0);
  };
  process.once('SIGINT', () => void stop());
  process.once('SIGTERM', () => void stop());
  terminal.line(`KsADK console, as ${shown(describePrincipal(principal))}: ${served.url}`);
  return EXIT.ok;
}
