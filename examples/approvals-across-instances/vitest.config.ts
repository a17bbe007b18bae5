import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['src/**/*.test.ts'],
    globalSetup: ['./vitest.global-setup.mjs'],
    // Each case starts four fresh `node` processes that load a whole framework (an ADK process alone
    // costs about 4 s of CPU to start): under the full CI on two cores one such process has taken
    // 80 s and a case 300 s, so the bound is wide; a hang still ends (each process at 240 s).
    testTimeout: 600_000,
    hookTimeout: 60_000,
  },
});
