// The module hooks test-peers.mjs registers: a bare import of a package installed in the peers
// folder resolves there, from anywhere outside it.
import { readdirSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';

let names = new Set();
let folder = '';
let parentURL = '';

/** @param {{ dir: string }} data */
export function initialize({ dir }) {
  folder = pathToFileURL(`${path.resolve(dir)}/`).href;
  // A module beside the folder: Node looks for packages in its node_modules, that is, `dir`.
  parentURL = pathToFileURL(path.join(path.dirname(path.resolve(dir)), 'peers.mjs')).href;
  names = new Set(
    readdirSync(dir).flatMap((entry) =>
      entry.startsWith('@')
        ? readdirSync(path.join(dir, entry)).map((name) => `${entry}/${name}`)
        : entry.startsWith('.')
          ? []
          : [entry],
    ),
  );
}

/** The package a bare specifier names (`@scope/name/sub` → `@scope/name`), or undefined. */
function packageOf(specifier) {
  if (/^(?:[./]|[a-z]+:)/i.test(specifier)) return undefined;
  const parts = specifier.split('/');
  return specifier.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0];
}

export function resolve(specifier, context, next) {
  const name = packageOf(specifier);
  if (name && names.has(name) && !context.parentURL?.startsWith(folder))
    return next(specifier, { ...context, parentURL });
  return next(specifier, context);
}
