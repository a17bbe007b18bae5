import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

/**
 * Every public entry of a workspace package (`packages/<folder>`), mapped to its source by the
 * `@ksadk/source` export condition.
 */
function sourceAliases(folder: string): { find: RegExp; replacement: string }[] {
  const packageJson = new URL(`./packages/${folder}/package.json`, import.meta.url);
  const { name, exports } = JSON.parse(readFileSync(packageJson, 'utf8')) as {
    name: string;
    exports: Record<string, string | { '@ksadk/source'?: string }>;
  };
  return Object.entries(exports).flatMap(([subpath, target]) => {
    const source = typeof target === 'string' ? undefined : target['@ksadk/source'];
    if (!source) return [];
    const specifier = subpath.replace(/^\./, name);
    return [
      {
        find: new RegExp(`^${specifier.replace(/[/]/g, '\\/')}$`),
        replacement: fileURLToPath(new URL(source, packageJson)),
      },
    ];
  });
}

/**
 * Framework packages to test against instead of the pinned ones: every package installed in
 * `KSADK_TEST_PEERS_DIR` (a `node_modules` folder, e.g. with `openai@7`) replaces the workspace's
 * copy, so CI runs the adapters' tests against the newest majors of their peer ranges too.
 */
function peerAliases(): { find: RegExp; replacement: string }[] {
  const dir = process.env['KSADK_TEST_PEERS_DIR'];
  if (!dir) return [];
  return readdirSync(dir).flatMap((entry) => {
    const names = entry.startsWith('@')
      ? readdirSync(path.join(dir, entry)).map((name) => `${entry}/${name}`)
      : entry.startsWith('.')
        ? []
        : [entry];
    return names.flatMap((name) => packageAliases(name, path.join(dir, name)));
  });
}

type ExportTarget = string | { import?: ExportTarget; default?: ExportTarget } | null | undefined;

/** The file an `exports` entry points an ESM import to. */
function importTarget(target: ExportTarget): string | undefined {
  if (typeof target === 'string') return target;
  if (!target) return undefined;
  return importTarget(target.import) ?? importTarget(target.default);
}

/**
 * Aliases for one installed package: each subpath of its `exports` (`ai/test` too, so no entry
 * mixes two versions) to the file it names, else the package folder itself.
 */
function packageAliases(name: string, folder: string): { find: RegExp; replacement: string }[] {
  const escaped = name.replace(/[/.]/g, '\\$&');
  const manifest = JSON.parse(readFileSync(path.join(folder, 'package.json'), 'utf8')) as {
    exports?: Record<string, ExportTarget> | string;
  };
  const { exports } = manifest;
  if (typeof exports !== 'object' || exports === null || !Object.hasOwn(exports, '.'))
    return [{ find: new RegExp(`^${escaped}$`), replacement: folder }];
  return Object.entries(exports).flatMap(([subpath, target]) => {
    const file = importTarget(target);
    if (!file || subpath.includes('*')) return [];
    const specifier = `${escaped}${subpath.slice(1).replace(/[/.]/g, '\\$&')}`;
    return [{ find: new RegExp(`^${specifier}$`), replacement: path.join(folder, file) }];
  });
}

/**
 * The test configuration every adapter package uses: tests run against core's source — and that
 * of the other workspace packages in `sources` (their folders under `packages/`) — so no build is
 * needed in the inner loop, with the same isolation and timeouts.
 */
export function adapterVitestConfig(name: string, sources: readonly string[] = []) {
  return defineConfig({
    resolve: {
      alias: [...peerAliases(), ...['core', ...sources].flatMap((folder) => sourceAliases(folder))],
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
