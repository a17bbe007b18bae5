// `node --import ./scripts/test-peers.mjs …`: in a process a test starts, the packages installed in
// KSADK_TEST_PEERS_DIR (the newest peers, see node-releases.mjs) replace the workspace's copies, as
// vitest.adapter.ts does for the test itself, so parent and child run the same framework version.
// Without the variable it does nothing.
import { register } from 'node:module';

const dir = process.env.KSADK_TEST_PEERS_DIR;
if (dir) register('./test-peers-hooks.mjs', import.meta.url, { data: { dir } });
