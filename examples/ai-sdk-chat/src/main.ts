import { NodeChat } from './chat-client.js';
import { startChatServer } from './server.js';

const serve = process.argv.includes('--serve');
const live = Boolean(process.env['OPENAI_API_KEY']);
const server = await startChatServer(serve ? { port: Number(process.env['PORT'] ?? 3000) } : {});
if (serve) {
  console.log(
    `KsADK × AI SDK chat on ${server.url} (${live ? 'OpenAI' : 'scripted model'}); Ctrl-C stops it.`,
  );
} else {
  console.log(
    `KsADK × AI SDK chat — ${live ? 'live model' : 'offline (scripted model; set OPENAI_API_KEY for a real one)'}\n`,
  );
  // The SDK's own chat client (what useChat runs), against the server, as a browser would.
  const chat = new NodeChat(`${server.url}/api/chat`);
  await chat.sendMessage({ text: 'save groceries: milk, eggs' });
  await chat.idle();
  const [pending] = chat.pendingApprovals();
  console.log(`  user: save groceries: milk, eggs`);
  console.log(
    `  ${pending ? `${pending.tool} asks for approval: ${JSON.stringify(pending.input)}` : 'no approval was asked'}`,
  );
  if (pending) {
    console.log('  user: clicks Approve');
    await chat.addToolApprovalResponse({ id: pending.approvalId, approved: true });
    await chat.idle();
  }
  console.log(`  assistant: ${chat.lastText()}`);
  console.log(`\nnotes: ${JSON.stringify(Object.fromEntries(server.notes))}`);
  await server.close();
  if (server.notes.get('groceries') !== 'milk, eggs') {
    console.error('example check FAILED: the approved note was not saved');
    process.exit(1);
  }
  console.log('example check passed: the save waited for the approval, then ran once.');
  console.log(
    '`pnpm --filter @ksadk-examples/ai-sdk-chat serve` serves the page with the buttons.',
  );
}
