// A stdio "MCP server" that never answers: it reads its input, ignores end of input and SIGTERM,
// and writes nothing to stdout. `node silent-server.mjs`.
process.on('SIGTERM', () => undefined);
process.stdin.on('data', () => undefined);
process.stdin.on('end', () => undefined);
setInterval(() => undefined, 1000);
process.stderr.write(`silent fixture ${process.pid} ready\n`);
