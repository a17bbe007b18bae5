import { existsSync, lstatSync, readlinkSync, realpathSync } from 'node:fs';
import path from 'node:path';
import { isInsideRoot } from './sandbox-paths.js';

/** Top-level system directories programs need; on merged-/usr systems some are symlinks. */
const SYSTEM_DIRS = ['/usr', '/bin', '/sbin', '/lib', '/lib32', '/lib64', '/libx32'];
/** The few `/etc` entries programs need (the dynamic linker, users, name service, TLS roots). */
const ETC_ENTRIES = [
  'ld.so.cache',
  'ld.so.conf',
  'ld.so.conf.d',
  'passwd',
  'group',
  'nsswitch.conf',
  'hosts',
  'host.conf',
  'gai.conf',
  'resolv.conf',
  'localtime',
  'ssl',
  'ca-certificates',
  'ca-certificates.conf',
  'pki',
  'alternatives',
];

/**
 * The read-only system part of every sandbox, computed once per backend: `/usr` and the other
 * system directories (symlinks recreated as symlinks), a minimal set of `/etc` entries — not
 * all of `/etc` — and the directory of the running Node binary, so `node` runs inside.
 */
export function systemMountArgs(execPath: string = process.execPath): string[] {
  const args: string[] = [];
  const bound: string[] = [];
  for (const dir of SYSTEM_DIRS) {
    let stats: ReturnType<typeof lstatSync>;
    try {
      stats = lstatSync(dir);
    } catch {
      continue;
    }
    if (stats.isSymbolicLink()) args.push('--symlink', readlinkSync(dir), dir);
    else if (stats.isDirectory()) {
      args.push('--ro-bind', dir, dir);
      bound.push(dir);
    }
  }
  for (const name of ETC_ENTRIES) {
    const entry = `/etc/${name}`;
    if (existsSync(entry)) args.push('--ro-bind', entry, entry);
  }
  const nodeDirs = new Set([path.dirname(execPath), path.dirname(realpathSync(execPath))]);
  for (const dir of nodeDirs) {
    const real = realpathSync(dir);
    if (!bound.some((root) => isInsideRoot(root, real))) args.push('--ro-bind', real, dir);
  }
  return args;
}

/** What one command's sandbox holds besides the system part. */
export interface SandboxMounts {
  /** The session root (real path), bound read-write at the same path (none for a probe). */
  root: string | undefined;
  /** Host paths (real) bound read-only at the same path. */
  readOnlyPaths: readonly string[];
  /** More host paths (real) bound read-write at the same path. */
  writablePaths?: readonly string[];
  /** Empty private folders (a home of its own), made before the binds. */
  privateDirs?: readonly string[];
  /** @default 'ksadk-sandbox' */
  hostname?: string;
  network: boolean;
}

/**
 * The `bwrap` arguments for one command, up to and including `--`: new namespaces for
 * everything (the network too unless `network`), no capabilities, a new session (no terminal
 * injection), killed with its parent; an empty read-only root holding the system part, a
 * private `/proc`, `/dev` and `/tmp`, the read-only paths and the session root.
 */
export function bubblewrapArgs(
  system: readonly string[],
  mounts: SandboxMounts,
  cwd: string,
): string[] {
  const args = ['--die-with-parent', '--new-session', '--unshare-all'];
  if (mounts.network) args.push('--share-net');
  args.push('--cap-drop', 'ALL', '--hostname', mounts.hostname ?? 'ksadk-sandbox', ...system);
  args.push('--proc', '/proc', '--dev', '/dev', '--tmpfs', '/tmp');
  for (const dir of mounts.privateDirs ?? []) args.push('--tmpfs', dir);
  // Mounts apply in order: read-only paths inside a writable one go after it, so they stay
  // read-only.
  const writable = [...(mounts.root ? [mounts.root] : []), ...(mounts.writablePaths ?? [])];
  const inside = mounts.readOnlyPaths.filter((entry) =>
    writable.some((root) => isInsideRoot(root, entry)),
  );
  for (const entry of mounts.readOnlyPaths) {
    if (!inside.includes(entry)) args.push('--ro-bind', entry, entry);
  }
  for (const entry of writable) args.push('--bind', entry, entry);
  for (const entry of inside) args.push('--ro-bind', entry, entry);
  args.push('--remount-ro', '/', '--chdir', cwd, '--');
  return args;
}
