// Heavier dependencies of the workspace tools load on first use, so importing @ksadk/core stays cheap.
let diffModule: Promise<typeof import('diff')> | undefined;
let picomatchModule: Promise<typeof import('picomatch')> | undefined;

/** The `diff` package (unified diffs, character diffs). */
export function loadDiff(): Promise<typeof import('diff')> {
  diffModule ??= import('diff');
  return diffModule;
}

/** The `picomatch` package (glob matching). */
export async function loadPicomatch(): Promise<typeof import('picomatch')> {
  picomatchModule ??= import('picomatch').then(
    (module) =>
      ((module as unknown as { default?: typeof import('picomatch') }).default ??
        module) as typeof import('picomatch'),
  );
  return picomatchModule;
}
