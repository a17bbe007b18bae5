import type { Terminal } from './terminal.js';

/** What a command's action is handed: its terminal and the environment. */
export interface CommandContext {
  readonly terminal: Terminal;
  readonly env: NodeJS.ProcessEnv;
}

/** The process a run talks to (the real one, or a test's). */
export interface KsadkIo {
  readonly env: NodeJS.ProcessEnv;
  readonly stdout: NodeJS.WriteStream;
  readonly stderr: NodeJS.WriteStream;
  readonly stdin: NodeJS.ReadStream;
}
