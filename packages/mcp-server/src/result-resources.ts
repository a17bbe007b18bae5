import { getInvocationContext, readPersistedOutput, type ToolGateway } from '@ksadk/core';
import { McpError, type ReadResourceResult } from '@modelcontextprotocol/sdk/types.js';
import { RESULT_SCHEME } from './call-result.js';

/** MCP's error code for an unknown resource. */
const RESOURCE_NOT_FOUND = -32002;

/** Text formats a saved output is returned as text in; anything else comes back as a blob. */
const TEXT = /^(text\/|application\/(json|xml|yaml|x-ndjson))/;

const EXTENSION_TYPES: Readonly<Record<string, string>> = {
  txt: 'text/plain',
  json: 'application/json',
  png: 'image/png',
  jpg: 'image/jpeg',
  jpeg: 'image/jpeg',
  gif: 'image/gif',
  webp: 'image/webp',
  wav: 'audio/wav',
  mp3: 'audio/mpeg',
};

/**
 * `resources/read` of a `tool-results://` handle: the saved output, read as the current principal
 * (another account's or session's handle is "not found", as an unknown one is).
 */
export async function readResultResource(
  gateway: ToolGateway,
  uri: string,
): Promise<ReadResourceResult> {
  const notFound = () =>
    new McpError(RESOURCE_NOT_FOUND, `Resource not found: ${uri.slice(0, 200)}`);
  if (typeof uri !== 'string' || !uri.startsWith(RESULT_SCHEME) || uri.length > 1024)
    throw notFound();
  const bytes = await readPersistedOutput(uri, gateway.budget, getInvocationContext() ?? {});
  if (!bytes) throw notFound();
  const extension = /\.([a-z0-9]+)$/i.exec(uri)?.[1]?.toLowerCase() ?? '';
  const mimeType = EXTENSION_TYPES[extension] ?? 'application/octet-stream';
  return {
    contents: [
      TEXT.test(mimeType)
        ? { uri, mimeType, text: bytes.toString('utf8') }
        : { uri, mimeType, blob: bytes.toString('base64') },
    ],
  };
}
