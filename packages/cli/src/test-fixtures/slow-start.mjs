// For the CLI's tests: an MCP server (a Node script given as the first argument, with the rest of
// the arguments) that starts only after 1.5 s — long enough for the command to show progress.
const [script, ...rest] = process.argv.slice(2);
await new Promise((resolve) => setTimeout(resolve, 1500));
process.argv = [process.argv[0], script, ...rest];
await import(script);
