import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['src/**/*.test.ts'],
    globalSetup: ['./vitest.global-setup.mjs'],
    // Each case starts four fresh `node` processes that load a whole framework: under the full CI on
    // two cores one such process has taken 30 s, so the bound is wide; a hang still ends.
    testTimeout: 300_000,
    hookTimeout: 60_000,
  },
});
