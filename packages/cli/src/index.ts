/**
 * `@ksadk/cli`: the `ksadk` command — `ksadk tools`, `ksadk mcp probe`, `ksadk skills …`,
 * `ksadk approvals …`, `ksadk console` — and {@link main} to run it from code.
 *
 * @packageDocumentation
 */
export { main } from './cli.js';
export type { KsadkIo } from './command-context.js';
