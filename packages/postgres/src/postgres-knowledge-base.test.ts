import { Pool } from 'pg';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createPostgresKnowledgeBase } from './postgres-knowledge-base.js';
import { describeWithPostgres, postgresUrl, uniqueSchema } from './test-support.js';

describeWithPostgres('PostgreSQL knowledge base', () => {
  let pool: Pool;
  beforeAll(() => {
    pool = new Pool({ connectionString: postgresUrl });
  });
  afterAll(() => pool?.end());

  it('finds an account’s documents, best first, and never another account’s', async () => {
    const knowledge = createPostgresKnowledgeBase({ pool, schema: uniqueSchema() });
    expect(
      await knowledge.addDocuments('acme', [
        { text: 'Refunds are paid within 5 working days.', source: 'refunds.md' },
        { text: 'Shipping is free above 50 euros; refunds of shipping are not paid.' },
        { text: '退款在五个工作日内支付。', source: 'zh/refunds.md' },
      ]),
    ).toBe(3);
    await knowledge.addDocuments({ accountId: 'acme:other', userId: 'x' }, [
      { text: 'Refunds at the other company take a year.', source: 'other.md' },
    ]);
    const scope = { accountId: 'acme', userId: 'alice' };
    const found = await knowledge.search('when are refunds paid, in working days?', {
      limit: 5,
      scope,
    });
    expect(found.map((passage) => passage.source)).toEqual(['refunds.md', undefined]);
    expect(found[0]).toMatchObject({ text: 'Refunds are paid within 5 working days.' });
    expect(found[0]!.score!).toBeGreaterThanOrEqual(found[1]!.score!);
    expect((await knowledge.search('退款', { limit: 5, scope }))[0]?.source).toBe('zh/refunds.md');
    expect(await knowledge.search('', { limit: 5, scope })).toEqual([]);
    expect(await knowledge.search('refunds', { limit: 1, scope })).toHaveLength(1);
    const other = await knowledge.search('refunds', {
      limit: 5,
      scope: { accountId: 'acme:other', userId: 'anyone' },
    });
    expect(other.map((passage) => passage.source)).toEqual(['other.md']);
    for (const accountId of ['Acme', 'acme ', 'acme:', '', "acme' OR '1'='1"])
      expect(
        await knowledge.search('refunds', { limit: 5, scope: { accountId, userId: 'alice' } }),
      ).toEqual([]);
    expect(await knowledge.searchMethod()).toBe('full_text');
  });

  it('adds many documents in batches', { timeout: 60_000 }, async () => {
    const knowledge = createPostgresKnowledgeBase({ pool, schema: uniqueSchema() });
    const documents = Array.from({ length: 1_200 }, (_, index) => ({
      text: `document ${index} about topic${index % 7}`,
    }));
    expect(await knowledge.addDocuments('acme', documents)).toBe(1_200);
    const found = await knowledge.search('topic3', {
      limit: 500,
      scope: { accountId: 'acme', userId: '' },
    });
    expect(found).toHaveLength(171);
  });
});
