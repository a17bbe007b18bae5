import { createRequire } from 'node:module';

const load = createRequire(import.meta.url);

/**
 * A CommonJS dependency loaded on first use, synchronously: entries stay cheap to import (a
 * catalogue that never screens a command or parses YAML never loads the parser), while the
 * functions that need the module keep their synchronous signatures.
 */
export function lazyRequire<T>(id: string): () => T {
  let module: T | undefined;
  return () => {
    module ??= load(id) as T;
    return module;
  };
}
