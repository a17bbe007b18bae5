import { describe, expect, it } from 'vitest';
import { KsadkError } from './ksadk-error.js';
import { runStoreOperation, toStoreUnavailableError } from './store-unavailable.js';

const PG = { store: 'postgres', storeName: 'PostgreSQL', operation: 'save a memory' } as const;

describe('toStoreUnavailableError', () => {
  it('names the store and the operation, with the driver code and no URL or password', () => {
    const driver = Object.assign(
      new Error(
        'connect failed for postgres://app:hunter2@db:5432/x (password=hunter2 host=db)\nstack',
      ),
      { code: 'ECONNREFUSED' },
    );
    const error = toStoreUnavailableError(driver, PG);
    expect(error.code).toBe('store_unavailable');
    expect(error.message).toBe(
      'PostgreSQL could not save a memory: ECONNREFUSED: connect failed for <url> (password=<redacted> host=db)',
    );
    expect(error.message).not.toContain('hunter2');
    expect(error.details).toEqual({ store: 'postgres', operation: 'save a memory' });
  });

  it("passes KsADK's own errors through", () => {
    const own = new KsadkError('invalid_config', 'bad');
    expect(toStoreUnavailableError(own, PG)).toBe(own);
  });
});

describe('runStoreOperation', () => {
  const options = { store: 'redis', storeName: 'Redis', operation: 'read a record' } as const;

  it('resolves with the work', async () => {
    await expect(runStoreOperation({ ...options, timeoutMs: 1000 }, async () => 7)).resolves.toBe(
      7,
    );
  });

  it('turns a timeout into store_unavailable', async () => {
    const error = await runStoreOperation(
      { ...options, timeoutMs: 10 },
      () => new Promise(() => {}),
    ).catch((caught: unknown) => caught);
    expect(error).toMatchObject({
      code: 'store_unavailable',
      message: 'Redis could not read a record: no answer within 10 ms',
    });
  });

  it('rejects with the signal reason when it aborts', async () => {
    const controller = new AbortController();
    const running = runStoreOperation(
      { ...options, timeoutMs: 10_000, signal: controller.signal },
      () => new Promise(() => {}),
    );
    const reason = new Error('stop');
    controller.abort(reason);
    await expect(running).rejects.toBe(reason);
  });
});
