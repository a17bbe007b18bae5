import type { Client } from '@modelcontextprotocol/sdk/client/index.js';

/** How a stdio server process ended. */
export interface McpProcessExit {
  readonly pid: number | undefined;
  readonly code: number | null;
  readonly signal: string | null;
  /** `false`: it stopped on its own (a crash); `true`: it was stopped here. */
  readonly requested: boolean;
  /** Why it was stopped here, or why it could not start. */
  readonly reason?: string;
  readonly at: Date;
}

/**
 * What a toolset knows about its server's connection, for the host (logs, health pages). Never
 * shown to the model.
 */
export interface McpToolsetDiagnostics {
  /** How the server is reached; for a URL, known after the first connection. */
  readonly transport: 'stdio' | 'streamable-http' | 'sse' | undefined;
  /** stdio: the running server's process id. */
  readonly pid: number | undefined;
  /** stdio: processes started; HTTP: sessions opened. */
  readonly starts: number;
  /** stdio: times the server stopped on its own or failed to start. */
  readonly crashes: number;
  /** stdio: how the last process ended. */
  readonly lastExit: McpProcessExit | undefined;
  /** stdio: no restart before this time (back-off after crashes). */
  readonly restartNotBefore: Date | undefined;
  /** stdio: the last 64 KiB of the server's stderr (across restarts), registered secrets redacted. */
  readonly stderrTail: string;
  /** stdio: bytes of stderr seen in all. */
  readonly stderrBytes: number;
}

/** One live session with a server. */
export interface McpSession {
  readonly client: Client;
  /** `false` once the server is known to be gone (a stdio server process exited). */
  alive(): boolean;
  /** Why the session ended, for messages ("it exited with code 3"), when known. */
  endedBecause(): string | undefined;
  close(): Promise<void>;
}

/** Opens sessions with one server (over whichever transport) and keeps its diagnostics. */
export interface McpConnection {
  readonly kind: 'http' | 'stdio';
  open(): Promise<McpSession>;
  diagnostics(): McpToolsetDiagnostics;
  /** Stops whatever is starting or running (stdio processes); later `open()`s start afresh. */
  close(): Promise<void>;
}

/** Client identity sent at initialisation. */
export const clientInfo = (name: string | undefined): { name: string; version: string } => ({
  name: name ?? 'ksadk',
  version: '0.1.0',
});

/** How each new client is prepared before it connects: capabilities to declare, handlers to install. */
export interface McpClientSetup {
  readonly capabilities: Record<string, unknown>;
  install(client: Client): Promise<void>;
}

/** A new SDK client, named and prepared (`setup`), not yet connected; loads the SDK's client. */
export async function newMcpClient(
  clientName: string | undefined,
  setup: McpClientSetup | undefined,
): Promise<Client> {
  const { Client } = await import('@modelcontextprotocol/sdk/client/index.js');
  const client = new Client(clientInfo(clientName), { capabilities: setup?.capabilities ?? {} });
  await setup?.install(client);
  return client;
}
