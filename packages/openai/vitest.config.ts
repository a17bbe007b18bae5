import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  resolve: {
    // Tests run against core's source, so no build is needed in the inner loop.
    alias: [
      {
        find: /^@ksadk\/core\/testing$/,
        replacement: fileURLToPath(new URL('../core/src/testing/index.ts', import.meta.url)),
      },
      {
        find: /^@ksadk\/core$/,
        replacement: fileURLToPath(new URL('../core/src/index.ts', import.meta.url)),
      },
    ],
  },
  test: {
    name: '@ksadk/openai',
    include: ['src/**/*.test.ts'],
    restoreMocks: true,
    unstubEnvs: true,
    testTimeout: 30_000,
  },
});
