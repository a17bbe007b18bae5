import type { MemoryBackend } from '../../memory/memory-backend.js';
import type { Check } from './conformance-run.js';
import type { MemoryBackendLimits } from './memory-backend-factory.js';
import { ALICE, ids, LOOK_ALIKES } from './memory-check-scopes.js';
import type { StoreCheck } from './store-check.js';

/** Makes one memory-backend check (a fresh backend with the check's limits). */
export type MemoryCheck = StoreCheck<MemoryBackend, MemoryBackendLimits>;

/** Saving and searching: saves return what they stored, an empty query gives the newest first, a query ranks its match first, limits hold, a huge query is cut, an aborted signal stops a search. */
export function searchChecks(check: MemoryCheck, hugeQueryMs: number): Check[] {
  return [
    check('save returns the record it stored', {}, async (backend, c) => {
      const before = Date.now();
      const record = await backend.save(ALICE, {
        content: 'Prefers green tea in the morning',
        sessionId: 'sess_1',
        agentId: 'agent_1',
        metadata: { source: 'conformance', nested: { n: 1 } },
      });
      c.expect(typeof record.id === 'string' && record.id.length > 0, 'record id is empty');
      c.expectEqual(record.content, 'Prefers green tea in the morning', 'content');
      const created = Date.parse(record.created_at);
      c.expect(
        Number.isFinite(created) && created >= before - 5_000 && created <= Date.now() + 5_000,
        `created_at ${record.created_at} is not a current ISO time`,
      );
      c.expectEqual(record.session_id, 'sess_1', 'session_id');
      c.expectEqual(record.agent_id, 'agent_1', 'agent_id');
      c.expectEqual(record.metadata, { source: 'conformance', nested: { n: 1 } }, 'metadata');
      const [found] = await backend.search(ALICE, 'green tea', 5);
      c.expectEqual(found && { ...found, score: 0 }, { ...record, score: 0 }, 'searched record');
      c.expect(typeof found?.score === 'number', 'score is not a number');
    }),

    check(
      'an empty query gives the newest records first, within the limit',
      {},
      async (backend, c) => {
        const saved = [];
        for (let index = 0; index < 7; index += 1)
          saved.push(await backend.save(ALICE, { content: `fact number ${index}` }));
        const newest = ids(saved).reverse();
        c.expectEqual(ids(await backend.search(ALICE, '', 3)), newest.slice(0, 3), 'limit 3');
        c.expectEqual(ids(await backend.search(ALICE, '', 100)), newest, 'limit 100');
        c.expectEqual(ids(await backend.search(ALICE, '  \n\t', 2)), newest.slice(0, 2), 'blank');
        c.expectEqual(ids(await backend.search(ALICE, '?!', 2)), newest.slice(0, 2), 'no terms');
        c.expectEqual(await backend.search(ALICE, '', 0), [], 'limit 0');
      },
    ),

    check(
      'a query ranks the matching record first and respects the limit',
      {},
      async (backend, c) => {
        await backend.save(ALICE, { content: 'Lives in Lisbon' });
        const coffee = await backend.save(ALICE, { content: 'Drinks coffee, black, no sugar' });
        await backend.save(ALICE, { content: 'Works on compilers' });
        const found = await backend.search(ALICE, 'what coffee does she drink?', 5);
        c.expectEqual(found[0]?.id, coffee.id, 'best match');
        const scores = found.map((record) => record.score);
        c.expect(
          scores.every((score, index) => index === 0 || score <= scores[index - 1]!),
          `scores not best first: ${JSON.stringify(scores)}`,
        );
        c.expect((await backend.search(ALICE, 'coffee', 1)).length <= 1, 'limit 1 exceeded');
      },
    ),

    check(
      'a huge query is read only as far as its first 2,000 characters',
      {},
      async (backend, c) => {
        const coffee = await backend.save(ALICE, { content: 'likes coffee' });
        await backend.save(ALICE, { content: 'zebra stripes' });
        const query = `coffee ${'filler '.repeat(150_000)} zebra`;
        const started = Date.now();
        const found = await backend.search(ALICE, query, 5);
        const took = Date.now() - started;
        c.expect(took <= hugeQueryMs, `a 1 MB query took ${took} ms`);
        c.expectEqual(found[0]?.id, coffee.id, 'the match in the first 2,000 characters');
        const many = Array.from({ length: 100 }, (_, index) => `term${index}`).join(' ');
        c.expect(
          (await backend.search(ALICE, `${many} coffee`, 5)).every((r) => r.id !== coffee.id),
          'a term past the first 64 distinct terms was used',
        );
      },
    ),

    check('a search honours an aborted signal', {}, async (backend, c) => {
      await backend.save(ALICE, { content: 'something to find' });
      const controller = new AbortController();
      const reason = new Error('stop now');
      controller.abort(reason);
      let outcome: unknown = 'resolved';
      try {
        await backend.search(ALICE, 'something', 5, { signal: controller.signal });
      } catch (error) {
        outcome = error;
      }
      c.expect(outcome === reason, `an aborted search gave ${String(outcome)}, not the reason`);
    }),

    check(
      'a scope keeps its newest records up to the limit',
      { maxRecordsPerScope: 5 },
      async (backend, c) => {
        const saved = [];
        for (let index = 0; index < 8; index += 1)
          saved.push(await backend.save(ALICE, { content: `kept fact ${index}` }));
        c.expectEqual(
          ids(await backend.search(ALICE, '', 100)),
          ids(saved.slice(-5)).reverse(),
          'the five newest',
        );
      },
    ),
  ];
}

/** Scopes and hostile input: look-alike scopes see nothing of each other, unicode and SQL-looking text round-trip, `__proto__` pollutes nothing, concurrent and 1 MB saves land whole. */
export function isolationChecks(check: MemoryCheck): Check[] {
  return [
    check('no scope sees another scope’s memories', {}, async (backend, c) => {
      await backend.save(ALICE, { content: 'secret passport number 12345' });
      for (const scope of LOOK_ALIKES) {
        const label = JSON.stringify(scope);
        c.expectEqual(await backend.search(scope, 'secret passport', 10), [], `${label} query`);
        c.expectEqual(await backend.search(scope, '', 10), [], `${label} recent`);
      }
      for (const scope of LOOK_ALIKES)
        await backend.save(scope, { content: `planted secret by ${JSON.stringify(scope)}` });
      c.expectEqual(
        (await backend.search(ALICE, '', 100)).map((record) => record.content),
        ['secret passport number 12345'],
        'alice’s memories after the others saved',
      );
      for (const scope of LOOK_ALIKES) {
        c.expectEqual(
          (await backend.search(scope, 'secret', 100)).map((record) => record.content),
          [`planted secret by ${JSON.stringify(scope)}`],
          `${JSON.stringify(scope)} sees only its own`,
        );
      }
    }),

    check('unicode and SQL-looking content round-trips', {}, async (backend, c) => {
      const contents = [
        '张三喜欢喝乌龙茶',
        'Emoji 🧪🔬 and combining e\u0301 and RTL שלום',
        "Robert'); DROP TABLE memories; --",
        'back\\slash "quotes" and\nnewlines\tand % and _ wildcards',
        'lone surrogate \ud800 here',
      ];
      const saved = [];
      for (const content of contents) saved.push(await backend.save(ALICE, { content }));
      c.expectEqual(
        saved.map((record) => record.content),
        contents,
        'saved content is returned as given',
      );
      const recent = (await backend.search(ALICE, '', 10)).map((record) => record.content);
      c.expectEqual(recent, [...contents].reverse(), 'content read back');
      c.expectEqual(
        (await backend.search(ALICE, '张三', 3))[0]?.content,
        contents[0],
        'a CJK query finds CJK content',
      );
      c.expectEqual(
        (await backend.search(ALICE, 'DROP TABLE', 3))[0]?.content,
        contents[2],
        'SQL-looking text is just text',
      );
    }),

    check('__proto__ in metadata pollutes nothing', {}, async (backend, c) => {
      const metadata = JSON.parse('{"__proto__":{"polluted":"yes"},"kind":"note"}') as Record<
        string,
        unknown
      >;
      try {
        await backend.save(ALICE, { content: 'fact with hostile metadata', metadata });
      } catch (error) {
        c.expect(
          typeof error === 'object' && error !== null && 'code' in error,
          `save threw an error without a code: ${String(error)}`,
        );
      }
      await backend.save(ALICE, { content: 'plain fact' });
      const found = await backend.search(ALICE, 'fact', 10);
      c.expect(
        ({} as Record<string, unknown>)['polluted'] === undefined,
        'Object.prototype polluted',
      );
      c.expect(
        found.some((record) => record.content === 'plain fact'),
        'the plain fact is missing',
      );
      for (const record of found) {
        const meta = record.metadata;
        if (meta === undefined) continue;
        c.expect(Object.getPrototypeOf(meta) === Object.prototype, 'metadata prototype replaced');
        c.expect((meta as Record<string, unknown>)['polluted'] === undefined, 'metadata polluted');
      }
    }),

    check('concurrent saves to one scope all land', {}, async (backend, c) => {
      const saved = await Promise.all(
        Array.from({ length: 25 }, (_, index) =>
          backend.save(ALICE, { content: `parallel fact ${index}` }),
        ),
      );
      const found = await backend.search(ALICE, '', 100);
      c.expectEqual(ids(found).sort(), ids(saved).sort(), 'records after concurrent saves');
      c.expectEqual(new Set(ids(saved)).size, saved.length, 'ids are unique');
    }),

    check('a 1 MB memory is saved whole and stays in its scope', {}, async (backend, c) => {
      const big = `huge ${'x'.repeat(1024 * 1024)}`;
      await backend.save(ALICE, { content: big });
      const [found] = await backend.search(ALICE, 'huge', 1);
      c.expect(found?.content === big, 'the 1 MB memory did not come back whole');
      c.expectEqual(await backend.search(LOOK_ALIKES[0]!, 'huge', 1), [], 'another scope');
    }),
  ];
}
