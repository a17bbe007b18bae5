import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

/** Every public entry of @ksadk/core, mapped to its source by the `@ksadk/source` export condition. */
function coreSourceAliases(): { find: RegExp; replacement: string }[] {
  const packageJson = new URL('./packages/core/package.json', import.meta.url);
  const { exports } = JSON.parse(readFileSync(packageJson, 'utf8')) as {
    exports: Record<string, string | { '@ksadk/source'?: string }>;
  };
  return Object.entries(exports).flatMap(([subpath, target]) => {
    const source = typeof target === 'string' ? undefined : target['@ksadk/source'];
    if (!source) return [];
    const specifier = subpath.replace(/^\./, '@ksadk/core');
    return [
      {
        find: new RegExp(`^${specifier.replace(/[/]/g, '\\/')}$`),
        replacement: fileURLToPath(new URL(source, packageJson)),
      },
    ];
  });
}

/**
 * The test configuration every adapter package uses: tests run against core's source
 * (so no build is needed in the inner loop), with the same isolation and timeouts.
 */
export function adapterVitestConfig(name: string) {
  return defineConfig({
    resolve: { alias: coreSourceAliases() },
    test: {
      name,
      include: ['src/**/*.test.ts'],
      restoreMocks: true,
      unstubEnvs: true,
      testTimeout: 30_000,
    },
  });
}
