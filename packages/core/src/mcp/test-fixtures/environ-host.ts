// A host process started with a secret in its environment (as a real host is): it loads the
// fixture server over stdio (`none` or `bubblewrap`), asks it to look for the secret through
// /proc, and prints what the server saw. `environ-host.ts <none|bubblewrap> <repo> <needle>`.
import { fileURLToPath } from 'node:url';
import { createToolGateway } from '../../gateway/create-tool-gateway.js';
import { loadMcpToolsets } from '../load-mcp-toolsets.js';

const [mode, repo, needle] = process.argv.slice(2) as [string, string, string];
const server = fileURLToPath(new URL('./stdio-server.mjs', import.meta.url));
const loaded = await loadMcpToolsets([
  {
    name: 'fixture',
    command: process.execPath,
    args: [server],
    ...(mode === 'bubblewrap'
      ? { sandbox: { type: 'bubblewrap' as const, readOnlyPaths: [repo] } }
      : {}),
  },
]);
try {
  const tool = loaded.tools.find((candidate) => candidate.name === 'environ_search');
  if (!tool) throw new Error(`no environ_search tool: ${loaded.problems.join('; ')}`);
  const result = (await createToolGateway({ approvalMode: 'full', env: {} }).invoke(tool, {
    needle,
  })) as { text?: string };
  process.stdout.write(result.text ?? JSON.stringify(result));
} finally {
  await loaded.close();
}
