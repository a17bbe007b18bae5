// Test fixture: one host process of the cross-process execution tests (the host itself is
// test-support/call-once-host.ts), run with `node --conditions=@ksadk/source --import tsx`.
// Usage: call-once.mjs <postgresUrl> <schema> <persistDir> <logFile> <callId> <write|hang> <startAtEpochMs>
import * as core from '@ksadk/core';
import { z } from 'zod';
import { callOnce } from '../../../../test-support/call-once-host.ts';
import { createPostgresExecutionStore } from '../postgres-execution-store.ts';

const [connectionString, schema, ...argv] = process.argv.slice(2);
const store = createPostgresExecutionStore({ connectionString, schema, timeoutMs: 30_000 });
await callOnce({ core, z, store, argv });
