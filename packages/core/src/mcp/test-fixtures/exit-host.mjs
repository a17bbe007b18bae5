// A host process that starts a stdio MCP server (which starts a grandchild) and then ends
// without closing anything: `node --import tsx exit-host.mjs <natural|exit> <server script>`.
// It prints the server's and the grandchild's pids; the test checks both are gone afterwards.
import { createToolGateway } from '../../gateway/create-tool-gateway.ts';
import { parseMcpServerConfigs } from '../mcp-config.ts';
import { createMcpToolset } from '../mcp-toolset.ts';

const [how, script] = process.argv.slice(2);
const { configs } = parseMcpServerConfigs([
  { name: 'host', command: process.execPath, args: [script] },
]);
const toolset = createMcpToolset(configs[0]);
const tools = await toolset.tools();
const gateway = createToolGateway({ approvalMode: 'full', env: {} });
const call = async (name) => {
  const result = await gateway.invoke(
    tools.find((tool) => tool.name === name),
    {},
  );
  return result.text;
};
const sleeper = Number(await call('spawn_sleeper'));
const server = JSON.parse(await call('whoami')).pid;
console.log(JSON.stringify({ server, sleeper }));
if (how === 'exit') process.exit(0);
// natural: nothing is left to do, and the idle server must not keep this process alive.
