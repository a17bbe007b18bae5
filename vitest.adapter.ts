import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

/**
 * The test configuration every adapter package uses: tests run against core's source
 * (so no build is needed in the inner loop), with the same isolation and timeouts.
 */
export function adapterVitestConfig(name: string) {
  return defineConfig({
    resolve: {
      alias: [
        {
          find: /^@ksadk\/core\/testing$/,
          replacement: fileURLToPath(
            new URL('./packages/core/src/testing/index.ts', import.meta.url),
          ),
        },
        {
          find: /^@ksadk\/core$/,
          replacement: fileURLToPath(new URL('./packages/core/src/index.ts', import.meta.url)),
        },
      ],
    },
    test: {
      name,
      include: ['src/**/*.test.ts'],
      restoreMocks: true,
      unstubEnvs: true,
      testTimeout: 30_000,
    },
  });
}
