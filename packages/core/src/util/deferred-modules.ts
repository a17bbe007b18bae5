import { createRequire } from 'node:module';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { KsadkError } from '../errors/ksadk-error.js';

// Modules loaded on first use, not at import: KsADK's own CommonJS dependencies that only some
// calls need, and packages KsADK does not depend on that the application installs.

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

/**
 * Imports a package KsADK does not depend on — a store package the environment names — from core's
 * own resolution, else from the application's (the current directory), so it works wherever the
 * application installed it.
 *
 * @throws {KsadkError} `setup` naming what to install when neither can find it.
 */
export async function importOptional<T>(name: string, why: string, install: string): Promise<T> {
  try {
    return (await import(/* @vite-ignore */ name)) as T;
  } catch (error) {
    if ((error as { code?: string })?.code !== 'ERR_MODULE_NOT_FOUND') throw error;
  }
  let resolved: string;
  try {
    resolved = createRequire(path.join(process.cwd(), 'index.js')).resolve(name);
  } catch {
    throw new KsadkError('setup', `${why}, so install it: npm i ${install}`);
  }
  return (await import(pathToFileURL(resolved).href)) as T;
}
