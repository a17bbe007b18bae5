import type { MemoryScope } from '../../memory/memory-backend.js';

/** The scope whose memories the checks save and look for. */
export const ALICE: MemoryScope = { accountId: 'acme', userId: 'alice@example.com' };

/** Scopes that must never see ALICE's memories, nor each other's. */
export const LOOK_ALIKES: readonly MemoryScope[] = [
  { accountId: 'acme', userId: 'Alice@example.com' },
  { accountId: 'acme', userId: 'alice@example.com ' },
  { accountId: 'acme:alice@example.com', userId: '' },
  { accountId: '', userId: 'acme:alice@example.com' },
  { accountId: 'acme', userId: 'alice@example.com:' },
  { accountId: 'acme:alice', userId: '@example.com' },
  { accountId: 'acme', userId: 'alice_0040example_002ecom' },
  { accountId: 'acme', userId: '["acme","alice@example.com"]' },
  { accountId: 'other', userId: 'alice@example.com' },
  { accountId: 'acme', userId: '*' },
  { accountId: 'acme', userId: '%' },
  { accountId: 'acme', userId: "' OR '1'='1" },
  { accountId: 'acme', userId: '__proto__' },
  { accountId: '__proto__', userId: 'alice@example.com' },
  { accountId: 'acme\u0000', userId: 'alice@example.com' },
  { accountId: 'acme', userId: 'alice@example.com\u0000' },
  { accountId: 'acme', userId: '../alice@example.com' },
];

/** The ids of records, in order. */
export const ids = (records: readonly { id: string }[]): string[] =>
  records.map((record) => record.id);
