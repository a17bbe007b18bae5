import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    name: '@ksadk/core',
    include: ['src/**/*.test.ts'],
    restoreMocks: true,
    unstubEnvs: true,
    // CI runs every package's tests at once on two cores; real processes and servers need headroom.
    testTimeout: 30_000,
    hookTimeout: 30_000,
  },
});
