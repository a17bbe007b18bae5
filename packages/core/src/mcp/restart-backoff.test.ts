import { describe, expect, it } from 'vitest';
import { createRestartBackoff } from './restart-backoff.js';

describe('createRestartBackoff', () => {
  it('waits 0.5 s, 1 s, 2 s… up to the cap after consecutive failures, and resets after a healthy run', () => {
    let now = 1_000_000;
    const backoff = createRestartBackoff({ now: () => now });
    expect(backoff.waitMs()).toBe(0);
    const waits: number[] = [];
    for (let i = 0; i < 9; i += 1) {
      backoff.started();
      now += 100; // crashes soon after starting
      backoff.failed();
      waits.push(backoff.waitMs());
      now += backoff.waitMs();
    }
    expect(waits).toEqual([500, 1000, 2000, 4000, 8000, 16_000, 30_000, 30_000, 30_000]);
    expect(backoff.notBefore()).toBeUndefined();
    // A process that ran for the healthy period starts the sequence over.
    backoff.started();
    now += 60_000;
    backoff.failed();
    expect(backoff.waitMs()).toBe(500);
    expect(backoff.notBefore()).toBe(now + 500);
    now += 200;
    expect(backoff.waitMs()).toBe(300);
  });

  it('counts a start that failed (no process ran) as a failure', () => {
    let now = 0;
    const backoff = createRestartBackoff({ initialMs: 100, maxMs: 250, now: () => now });
    backoff.failed();
    backoff.failed();
    expect(backoff.waitMs()).toBe(200);
    backoff.failed();
    expect(backoff.waitMs()).toBe(250);
    now += 250;
    expect(backoff.waitMs()).toBe(0);
  });
});
