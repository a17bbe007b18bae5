import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['src/**/*.test.ts'],
    globalSetup: ['./vitest.global-setup.mjs'],
    testTimeout: 120_000,
    hookTimeout: 60_000,
  },
});
