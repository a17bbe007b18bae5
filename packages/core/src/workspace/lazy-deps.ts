// Heavier dependencies of the workspace tools load on first use, so importing @ksadk/core stays cheap.
let diffModule: Promise<typeof import('diff')> | undefined;

/** The `diff` package (unified diffs, character diffs). */
export function loadDiff(): Promise<typeof import('diff')> {
  diffModule ??= import('diff');
  return diffModule;
}
