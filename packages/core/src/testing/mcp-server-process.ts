import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';

/** An MCP server running as a child process that serves HTTP on 127.0.0.1. */
export interface McpServerProcess {
  /** The server's MCP endpoint, e.g. `http://127.0.0.1:39121/mcp`. */
  readonly url: string;
  /** The child's process id. */
  readonly pid: number;
  /** Everything the server wrote to stderr so far (bounded to the last 64 KiB). */
  stderr(): string;
  /** Kills the server and waits for it to exit. */
  close(): Promise<void>;
}

/** What to run. */
export interface McpServerProcessOptions {
  /** A Node script (run with this Node) that starts an MCP server on an HTTP port. */
  readonly script: string;
  /** Its arguments, e.g. `['streamableHttp']` for `@modelcontextprotocol/server-everything`. */
  readonly args?: readonly string[];
  /** The endpoint path the server serves. @default '/mcp' */
  readonly path?: string;
  /** Extra environment (the child otherwise gets only PATH, HOME and `PORT=0`). */
  readonly env?: Readonly<Record<string, string>>;
  /** How long the server may take to listen. @default 20_000 */
  readonly startTimeoutMs?: number;
}

const STDERR_TAIL = 64 * 1024;

/*
 * Preloaded into the server: every `listen(port)` binds 127.0.0.1 instead of every interface,
 * and the bound address is announced on stderr, so `PORT=0` yields a free port we can read.
 */
const LOOPBACK_PRELOAD = `
import net from 'node:net';
const listen = net.Server.prototype.listen;
net.Server.prototype.listen = function (...args) {
  const first = args[0];
  const isPort = typeof first === 'number' || (typeof first === 'string' && /^\\d+$/.test(first));
  if (isPort && (args.length === 1 || typeof args[1] === 'function')) args.splice(1, 0, '127.0.0.1');
  this.once('listening', () => process.stderr.write('MCP_SERVER_LISTENING ' + JSON.stringify(this.address()) + '\\n'));
  return listen.apply(this, args);
};`;

/**
 * Starts a Node MCP server script as a child process serving HTTP on 127.0.0.1 at a free port —
 * for example the MCP project's reference server, `@modelcontextprotocol/server-everything` with
 * `args: ['streamableHttp']` — and resolves once it listens. Servers written to listen on every
 * interface are kept on loopback. For tests; `close()` it in `afterAll`.
 *
 * @example
 * ```ts
 * const server = await startMcpServerProcess({ script: require.resolve('@modelcontextprotocol/server-everything/dist/index.js'), args: ['streamableHttp'] });
 * const loaded = await loadMcpToolsets([{ name: 'everything', url: server.url }]);
 * ```
 */
export async function startMcpServerProcess(
  options: McpServerProcessOptions,
): Promise<McpServerProcess> {
  const preload = `data:text/javascript,${encodeURIComponent(LOOPBACK_PRELOAD)}`;
  const child: ChildProcess = spawn(
    process.execPath,
    ['--import', preload, options.script, ...(options.args ?? [])],
    {
      env: {
        PATH: process.env['PATH'] ?? '',
        HOME: process.env['HOME'] ?? '',
        ...options.env,
        PORT: '0',
      },
      stdio: ['ignore', 'ignore', 'pipe'],
    },
  );
  let stderr = '';
  child.stderr?.setEncoding('utf8');
  const exited = once(child, 'exit');
  const close = async (): Promise<void> => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    child.kill('SIGKILL');
    await exited;
  };
  try {
    const port = await new Promise<number>((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error(`the MCP server did not listen in time: ${stderr.slice(-2000)}`)),
        options.startTimeoutMs ?? 20_000,
      );
      child.once('error', (error) => {
        clearTimeout(timer);
        reject(error);
      });
      child.once('exit', (code, signal) => {
        clearTimeout(timer);
        reject(new Error(`the MCP server exited (${code ?? signal}): ${stderr.slice(-2000)}`));
      });
      child.stderr?.on('data', (chunk: string) => {
        stderr = (stderr + chunk).slice(-STDERR_TAIL);
        const match = /MCP_SERVER_LISTENING (\{.*\})/.exec(stderr);
        if (!match) return;
        clearTimeout(timer);
        resolve((JSON.parse(match[1]!) as { port: number }).port);
      });
    });
    return {
      url: `http://127.0.0.1:${port}${options.path ?? '/mcp'}`,
      pid: child.pid!,
      stderr: () => stderr,
      close,
    };
  } catch (error) {
    await close();
    throw error;
  }
}
