// Test fixture: a child process whose gateway uses its parent's approval store over IPC. It makes
// one gated call (the request lands in the parent's store), reads a request the parent's store
// refuses to give (the error comes back typed), and reports both on stdout.

import { z } from 'zod';
import {
  createToolGateway,
  defineTool,
  KsadkError,
  runWithInvocationContext,
} from '../../index.ts';
import { approvalStoreOverIpc } from '../ipc-approval-store.ts';

const store = approvalStoreOverIpc();
const gateway = createToolGateway({
  env: {},
  approvalStore: store,
  approvalSecret: 'ipc-fixture-secret-0123456789',
});
const write = defineTool({
  name: 'write_note',
  description: 'Writes a note.',
  input: z.object({ title: z.string() }),
  policy: { riskLevel: 'high', sideEffects: ['notes_write'] },
  execute: () => ({ ok: true }),
});
const who = { accountId: 'acct-ipc', userId: 'u', sessionId: 's' };
const result = await runWithInvocationContext(who, () =>
  gateway.invoke(write, { title: 'a' }, { callId: 'call_ipc' }),
);
let refused;
try {
  await store.get('appr_refused');
} catch (error) {
  refused = { typed: KsadkError.isInstance(error), code: error.code, message: error.message };
}
// A name that is no store method (here one every object has) runs nothing in the parent.
const unknown = await new Promise((resolve) => {
  process.on('message', (answer) => {
    if (answer.id === -1) resolve(answer);
  });
  process.send({ id: -1, method: 'constructor', args: [] });
});
process.stdout.write(JSON.stringify({ result, refused, unknown }));
process.exit(0);
