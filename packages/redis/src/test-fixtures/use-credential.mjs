// Test fixture: a host process whose tool uses a credential another process stored, run with
// `node --conditions=@ksadk/source --import tsx`.
// Usage: use-credential.mjs <redisUrl> <keyPrefix> <credentialKey>
// Calls an api_key tool as acct-a / alice, then as acct-b / alice, and prints
// `{ "a": <result>, "aKey": <sha256 of the key the tool got>, "b": <result> }`.
import { createHash } from 'node:crypto';
import { createToolGateway, defineTool, runWithInvocationContext } from '@ksadk/core';
import { z } from 'zod';
import { createRedisCredentialStore } from '../redis-credential-store.ts';

const [url, keyPrefix, key] = process.argv.slice(2);
const store = createRedisCredentialStore({ url, keyPrefix, timeoutMs: 15_000 });
const gateway = createToolGateway({ env: {}, credentials: { key, store } });
const seen = [];
const weather = defineTool({
  name: 'weather',
  description: 'Weather for a city.',
  input: z.object({ city: z.string() }),
  credentials: [{ id: 'weather-api', kind: 'api_key', description: 'Your WeatherCo key' }],
  execute: async ({ city }, context) => {
    const { token } = await context.credential('weather-api');
    seen.push(createHash('sha256').update(token).digest('hex'));
    return { ok: true, city };
  },
});
const call = (accountId) =>
  runWithInvocationContext({ accountId, userId: 'alice', sessionId: 's2' }, () =>
    gateway.invoke(weather, { city: 'Oslo' }),
  );
const a = await call('acct-a');
const b = await call('acct-b');
process.stdout.write(`${JSON.stringify({ a, aKey: seen[0] ?? null, b })}\n`);
await store.close();
