/**
 * `@ksadk/console`: a web console for KsADK — the approvals inbox, the calls timeline, skills,
 * connected accounts and MCP servers — mounted in your own server or started alone.
 *
 * @packageDocumentation
 */
export type { ConsolePrincipal, ResolvePrincipal } from './console-auth.js';
export {
  type KsadkConsoleFromEnv,
  type KsadkConsoleFromEnvOptions,
  serveKsadkConsoleFromEnv,
} from './console-from-env.js';
export {
  createKsadkConsole,
  type KsadkConsole,
  type KsadkConsoleOptions,
} from './create-ksadk-console.js';
export {
  type ServedKsadkConsole,
  type ServeKsadkConsoleOptions,
  serveKsadkConsole,
} from './serve-ksadk-console.js';
