import { checkOptions } from '@ksadk/core/adapter';
import type { KnowledgeBase, KnowledgePassage, MemoryScope } from '@ksadk/core/memory';
import { keyOf } from './approval-rows.js';
import type { PostgresConnectionOptions } from './postgres-connection.js';
import { schemaOf } from './schema-name.js';
import { openSearchTable } from './search-table.js';
import type { EmbedFunction } from './vector-support.js';

/** Options of {@link createPostgresKnowledgeBase}. */
export interface PostgresKnowledgeBaseOptions extends PostgresConnectionOptions {
  /** The schema of the tables (created and migrated on first use). @default 'public' */
  schema?: string;
  /** Embeds a text for vector search; used only when the `vector` extension is installed. */
  embed?: EmbedFunction;
  /** Bound on each operation; past it the call fails with `store_unavailable`. @default 10000 */
  timeoutMs?: number;
}

/** A document to add to an account's knowledge base. */
export interface KnowledgeDocument {
  readonly text: string;
  /** Where it came from (a file name, a URL), shown with the passage. */
  readonly source?: string;
}

/** A {@link KnowledgeBase} on PostgreSQL, with a way to fill it. */
export interface PostgresKnowledgeBase extends KnowledgeBase {
  readonly kind: 'postgres';
  /**
   * Adds documents to an account's knowledge base (given as the account id, or any scope of it:
   * documents belong to the account, and every user of it may find them). Resolves with the number
   * added.
   */
  addDocuments(
    owner: MemoryScope | string,
    documents: readonly KnowledgeDocument[],
  ): Promise<number>;
  /** How searches rank: `'vector'` (pgvector and `embed`) or `'full_text'`. */
  searchMethod(): Promise<'full_text' | 'vector'>;
  /** Ends the pool the knowledge base opened from `connectionString`; a pool you passed stays open. */
  close(): Promise<void>;
}

/** Documents added per INSERT. */
const BATCH = 500;

/**
 * A knowledge base in PostgreSQL (`ksadk_knowledge`): documents belong to one account, keyed by
 * the SHA-256 of its id, and a search only ever reads the searching scope's account. Search is
 * full-text (a generated 'simple' `tsvector` over core's search terms, GIN index, `ts_rank_cd`);
 * with an `embed` function and the `vector` extension installed, cosine similarity instead. A
 * query without terms finds nothing.
 *
 * @example
 * ```ts
 * const knowledgeBase = createPostgresKnowledgeBase({ connectionString: process.env.DATABASE_URL });
 * await knowledgeBase.addDocuments('acme', [{ text: 'Refunds take 5 days.', source: 'faq.md' }]);
 * const tools = createMemoryToolset({ knowledgeBase });
 * ```
 */
export function createPostgresKnowledgeBase(
  options: PostgresKnowledgeBaseOptions,
): PostgresKnowledgeBase {
  checkOptions(
    options,
    { pool: true, connectionString: true, schema: true, embed: true, timeoutMs: true },
    'createPostgresKnowledgeBase()',
  );
  const schema = schemaOf(options.schema, 'createPostgresKnowledgeBase()');
  const { embed } = options;
  const store = openSearchTable(
    options,
    schema,
    'ksadk_knowledge',
    'createPostgresKnowledgeBase()',
  );
  const { pool, table, ready } = store;

  return {
    kind: 'postgres',
    addDocuments: (owner, documents) =>
      store.run(
        'add knowledge documents',
        async () => {
          const found = await ready();
          const account = keyOf(typeof owner === 'string' ? owner : owner.accountId);
          for (let start = 0; start < documents.length; start += BATCH) {
            const batch = documents.slice(start, start + BATCH);
            const texts = batch.map((document) =>
              JSON.stringify({
                text: String(document.text),
                ...(document.source !== undefined ? { source: String(document.source) } : {}),
              }),
            );
            const indexed = await Promise.all(
              batch.map((document) => store.indexOf(found, String(document.text))),
            );
            const terms = indexed.map((row) => row.searchText);
            if (found.kind === 'vector' && embed) {
              const vectors = indexed.map((row) => row.embedding);
              await pool.query(
                `INSERT INTO ${table} (account_key, document, search_text, embedding)
               SELECT $1, d, t, v::${found.type} FROM unnest($2::text[], $3::text[], $4::text[]) AS x(d, t, v)`,
                [account, texts, terms, vectors],
              );
            } else {
              await pool.query(
                `INSERT INTO ${table} (account_key, document, search_text)
               SELECT $1, d, t FROM unnest($2::text[], $3::text[]) AS x(d, t)`,
                [account, texts, terms],
              );
            }
          }
          return documents.length;
        },
        { timeoutMs: Math.max(store.timeoutMs, documents.length * 10) },
      ),
    search: (query, { limit, scope }) =>
      store.run('search the knowledge base', async (): Promise<KnowledgePassage[]> => {
        if (!(limit > 0)) return [];
        const rows = await store.search({
          keyColumn: 'account_key',
          key: keyOf(scope.accountId),
          valueColumn: 'document',
          query,
          limit: Math.floor(limit),
          withoutTerms: 'none',
        });
        return rows.map((row) => {
          const { text, source } = JSON.parse(row.value) as { text: string; source?: string };
          return { text, ...(source !== undefined ? { source } : {}), score: row.score };
        });
      }),
    searchMethod: async () => (await ready()).kind,
    close: store.close,
  };
}
