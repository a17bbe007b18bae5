import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { deserializeMessage, serializeMessage } from '@modelcontextprotocol/sdk/shared/stdio.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import type { ByteTail } from '../util/byte-tail.js';
import {
  EXIT_WAIT_AFTER_KILL_MS,
  markedEnvironment,
  newTreeMarker,
  OUTPUT_DRAIN_MS,
  type ProcessTree,
  signalGroup,
  trackTree,
} from '../util/process-tree.js';
import { LineSplitter } from './json-lines.js';

/** How a server process ended. */
export interface StdioProcessExit {
  readonly pid: number | undefined;
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
  /**
   * `true` when we asked it to stop ({@link ProcessGroupStdioTransport.close} or `kill`) — not when
   * it had closed its input first (a write to it broke), which is it leaving on its own.
   */
  readonly requested: boolean;
  /** Why we stopped it, or why it could not start. */
  readonly reason: string | undefined;
  readonly uptimeMs: number;
}

/** What to run and how. */
export interface ProcessGroupStdioOptions {
  readonly command: string;
  readonly args: readonly string[];
  readonly cwd?: string | undefined;
  /** The child's whole environment (nothing else is inherited). */
  readonly env: Readonly<Record<string, string>>;
  /** Longest stdout message (one line); a server that sends more is killed. */
  readonly maxMessageBytes: number;
  /** Receives the server's stderr. */
  readonly stderr: ByteTail;
  /** After stdin is closed, how long the server may take to exit before SIGTERM, then SIGKILL. */
  readonly graceMs: number;
  /** Called once, as soon as the process has exited (before the last messages drain). */
  readonly onExit?: (exit: StdioProcessExit) => void;
}

/**
 * An MCP client transport over a server process's stdin/stdout, written for what the SDK's
 * `StdioClientTransport` does not do: the server leads its own process group (`detached`), so
 * stopping it stops its children too (`npx`, shell wrappers, helpers); it counts as closed when
 * the server process exits even if a grandchild still holds the pipes, so calls in flight fail at
 * once; stdout messages are bounded; stderr goes to a bounded tail; and the process and its
 * pipes do not keep the event loop alive while idle (an `exit` hook kills every group still
 * running when the host exits).
 */
export class ProcessGroupStdioTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: <T extends JSONRPCMessage>(message: T) => void;

  readonly #options: ProcessGroupStdioOptions;
  readonly #lines: LineSplitter;
  /** In the server's environment, inherited by all it starts: found and killed when it ends. */
  readonly #marker = newTreeMarker();
  #tree: ProcessTree | undefined;
  #child: ChildProcessWithoutNullStreams | undefined;
  #startedAt = 0;
  #requested = false;
  /** It closed its input before we asked it to stop: its exit is its own, whatever came after. */
  #leftFirst = false;
  #reason: string | undefined;
  #exited = false;
  #startFailed = false;
  #oversized = false;
  #closing: Promise<void> | undefined;
  #finished = false;
  readonly #done: Promise<void>;
  #finish!: () => void;
  readonly #exit: Promise<void>;
  #markExited!: () => void;

  constructor(options: ProcessGroupStdioOptions) {
    this.#options = options;
    this.#lines = new LineSplitter(options.maxMessageBytes);
    this.#done = new Promise((resolve) => {
      this.#finish = resolve;
    });
    this.#exit = new Promise((resolve) => {
      this.#markExited = resolve;
    });
  }

  /** The server's process id while it runs. */
  get pid(): number | undefined {
    return this.#exited ? undefined : this.#child?.pid;
  }

  /** Whether the server process is running (or starting). */
  get alive(): boolean {
    return this.#child !== undefined && !this.#exited;
  }

  start(): Promise<void> {
    if (this.#child) throw new Error('The stdio transport was started already');
    if (this.#requested) throw new Error('The stdio transport was closed');
    const options = this.#options;
    return new Promise<void>((resolve, reject) => {
      const failed = (error: Error): void => {
        if (this.#exited) return;
        this.#exited = true;
        this.#startFailed = true;
        this.#reason = error.message;
        this.#markExited();
        this.#end();
        reject(error);
      };
      let child: ChildProcessWithoutNullStreams;
      try {
        child = spawn(options.command, [...options.args], {
          cwd: options.cwd,
          env: markedEnvironment(options.env, this.#marker),
          stdio: ['pipe', 'pipe', 'pipe'],
          shell: false,
          // A new session and process group (pgid = pid) on POSIX: signals reach the children.
          detached: process.platform !== 'win32',
          windowsHide: true,
        });
      } catch (error) {
        // Refused synchronously: a NUL in an argument, an argument that is not a string…
        failed(error as Error);
        return;
      }
      this.#child = child;
      this.#startedAt = performance.now();
      child.once('spawn', () => {
        if (child.pid !== undefined) this.#tree = trackTree(child.pid, this.#marker);
        // Idle servers must not keep the host alive; requests in flight keep it alive with their
        // timers, and the exit hook stops whatever is left when the host exits.
        child.unref();
        for (const stream of [child.stdin, child.stdout, child.stderr]) {
          (stream as unknown as { unref?: () => void }).unref?.();
        }
        resolve();
      });
      child.on('error', (error) => {
        // No pid: the process could not be started (ENOENT, EACCES, a missing cwd…).
        if (child.pid === undefined) failed(error);
        else this.onerror?.(error);
      });
      child.once('exit', (code, signal) => this.#onExit(code, signal));
      child.stdin.on('error', (error) => {
        this.#noteBrokenInput(error);
        this.onerror?.(error);
      });
      child.stdout.on('error', (error) => this.onerror?.(error));
      child.stderr.on('error', () => undefined);
      child.stderr.on('data', (chunk: Buffer) => options.stderr.push(chunk));
      child.stdout.on('data', (chunk: Buffer) => this.#read(chunk));
    });
  }

  #read(chunk: Buffer): void {
    if (this.#oversized) return;
    let lines: string[];
    try {
      lines = this.#lines.push(chunk);
    } catch {
      this.#oversized = true;
      this.kill(`it sent a message larger than ${this.#options.maxMessageBytes} bytes`);
      this.#child?.stdout.destroy();
      return;
    }
    for (const line of lines) {
      if (line.trim() === '') continue;
      let message: JSONRPCMessage;
      try {
        message = deserializeMessage(line);
      } catch (error) {
        // A line that is not JSON-RPC (a server logging to stdout): skipped, reported out of band.
        this.onerror?.(error as Error);
        continue;
      }
      this.onmessage?.(message);
    }
  }

  #onExit(code: number | null, signal: NodeJS.Signals | null): void {
    if (this.#startFailed) return;
    this.#exited = true;
    this.#markExited();
    const child = this.#child!;
    const pid = child.pid;
    if (pid !== undefined) {
      // Whatever the server left behind goes with it: its group at once, then (once /proc has
      // been read) anything that left the group but carries its marker (`setsid`, a daemon).
      this.#tree?.untrack();
      void this.#tree?.kill({ leaderExited: true });
    }
    this.#options.onExit?.({
      pid,
      code,
      signal,
      requested: this.#requested && !this.#leftFirst,
      reason: this.#reason,
      uptimeMs: performance.now() - this.#startedAt,
    });
    // Let the last messages drain (stdout closes at once unless something else holds it).
    if (child.stdout.closed) {
      this.#end();
      return;
    }
    const drained = setTimeout(() => this.#end(), OUTPUT_DRAIN_MS);
    child.stdout.once('close', () => {
      clearTimeout(drained);
      this.#end();
    });
  }

  /** Ends the transport once: streams released, `onclose` called. */
  #end(): void {
    if (this.#finished) return;
    this.#finished = true;
    const child = this.#child;
    child?.stdout.destroy();
    child?.stderr.destroy();
    child?.stdin.destroy();
    this.#lines.clear();
    this.#finish();
    this.onclose?.();
  }

  send(message: JSONRPCMessage): Promise<void> {
    const child = this.#child;
    if (!child || this.#exited || this.#requested || child.stdin.destroyed) {
      return Promise.reject(new Error('Not connected'));
    }
    return new Promise<void>((resolve, reject) => {
      const flushed = child.stdin.write(serializeMessage(message), (error) => {
        if (!error) return;
        this.#noteBrokenInput(error);
        reject(error);
      });
      if (flushed) {
        resolve();
        return;
      }
      // Back-pressure: wait for the pipe, or for its end (the process is gone).
      const settle = (): void => {
        child.stdin.off('drain', settle);
        child.stdin.off('close', settle);
        if (this.#exited) reject(new Error('Not connected'));
        else resolve();
      };
      child.stdin.once('drain', settle);
      child.stdin.once('close', settle);
    });
  }

  /** Whether the server closed its input before we asked it to stop (a write to it broke). */
  get leftFirst(): boolean {
    return this.#leftFirst;
  }

  /** A write that broke because the server closed its input, before we asked it to stop. */
  #noteBrokenInput(error: Error): void {
    const code = (error as { code?: unknown }).code;
    if (!this.#requested && (code === 'EPIPE' || code === 'ECONNRESET')) this.#leftFirst = true;
  }

  /** Stops the server at once: SIGKILL to its whole group. `reason` is reported with the exit. */
  kill(reason: string): void {
    this.#requested = true;
    this.#reason ??= reason;
    const pid = this.#child?.pid;
    if (pid !== undefined && !this.#exited) signalGroup(pid, 'SIGKILL');
  }

  /**
   * Stops the server: stdin is closed (well-behaved servers exit on end of input), then the
   * whole group gets SIGTERM after the grace period, then SIGKILL after another. Resolves once
   * the process has exited and `onclose` was called.
   */
  close(): Promise<void> {
    this.#closing ??= this.#close();
    return this.#closing;
  }

  async #close(): Promise<void> {
    this.#requested = true;
    const child = this.#child;
    if (!child) {
      this.#end();
      return;
    }
    const pid = child.pid;
    if (!this.#exited && pid !== undefined) {
      child.stdin.end();
      if (!(await this.#exitedWithin(this.#options.graceMs))) {
        signalGroup(pid, 'SIGTERM');
        if (!(await this.#exitedWithin(this.#options.graceMs))) {
          signalGroup(pid, 'SIGKILL');
          await this.#exitedWithin(EXIT_WAIT_AFTER_KILL_MS);
        }
      }
    }
    // A process stuck beyond SIGKILL (uninterruptible I/O) must not hold close() forever.
    if (!this.#exited) {
      this.#tree?.untrack();
      this.#end();
    }
    await this.#done;
  }

  #exitedWithin(ms: number): Promise<boolean> {
    if (this.#exited) return Promise.resolve(true);
    return new Promise((resolve) => {
      const timer = setTimeout(() => resolve(false), ms);
      void this.#exit.then(() => {
        clearTimeout(timer);
        resolve(true);
      });
    });
  }
}
