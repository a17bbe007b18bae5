import { readFile, stat, statfs } from 'node:fs/promises';

/**
 * File systems whose reads are served by this machine's kernel from memory or a local disk — never
 * over a network or by a user-space process (NFS, SMB, FUSE, 9p, virtiofs… are not here): a read
 * there can be slow on a cold disk, but cannot hang on a server that went away.
 */
const LOCAL_FILE_SYSTEMS: ReadonlySet<number> = new Set([
  0xef53, // ext2, ext3, ext4
  0x58465342, // xfs
  0x9123683e, // btrfs
  0x01021994, // tmpfs
  0x858458f6, // ramfs
  0x794c7630, // overlayfs
  0xf2f52010, // f2fs
  0x2fc12fc1, // zfs
  0xca451a4e, // bcachefs
  0x3153464a, // jfs
  0x52654973, // reiserfs
  0x3434, // nilfs
  0x73717368, // squashfs
  0xe0f5e1e2, // erofs
]);

/** Per root: its device when it is on a local file system with nothing mounted below it, else `false`. */
const known = new Map<string, bigint | false>();
/** Roots being looked at now. */
const probing = new Set<string>();
const MAX_KNOWN = 4096;

/** `mountinfo`'s escapes (`\040` for a space…) undone. */
const unescapeField = (field: string): string =>
  field.replace(/\\([0-7]{3})/g, (_, octal: string) =>
    String.fromCharCode(Number.parseInt(octal, 8)),
  );

/** Whether some mount point of this process lies strictly below `root`. */
function mountedBelow(mountinfo: string, root: string): boolean {
  const prefix = root.endsWith('/') ? root : `${root}/`;
  for (const line of mountinfo.split('\n')) {
    const point = line.split(' ', 5)[4];
    if (point !== undefined && unescapeField(point).startsWith(prefix)) return true;
  }
  return false;
}

async function probe(root: string): Promise<void> {
  let device: bigint | false = false;
  try {
    const [fileSystem, stats, mountinfo] = await Promise.all([
      statfs(root),
      stat(root, { bigint: true }),
      readFile('/proc/self/mountinfo', 'utf8'),
    ]);
    if (LOCAL_FILE_SYSTEMS.has(fileSystem.type) && !mountedBelow(mountinfo, root))
      device = stats.dev;
  } catch {
    // Not Linux, no /proc, a root that went away: read the careful way.
  }
  if (known.size >= MAX_KNOWN) known.delete(known.keys().next().value!);
  known.set(root, device);
  probing.delete(root);
}

/**
 * The device of `root` (a real path) when it lies on a local file system (see
 * {@link LOCAL_FILE_SYSTEMS}) with no other file system mounted anywhere below it — where a small
 * read can be made without a thread-pool round trip, as it cannot hang — else `undefined`. The
 * first ask for a root answers `undefined` and looks, once per process, in the background.
 */
export function localRootDevice(root: string): bigint | undefined {
  const device = known.get(root);
  if (device === undefined && process.platform === 'linux' && !probing.has(root)) {
    probing.add(root);
    void probe(root);
  }
  return device === false ? undefined : device;
}

/** From now on `root` is read the thread-pool way (something was found mounted below it). */
export function forgetLocalRoot(root: string): void {
  known.set(root, false);
}

/** Resolves once every look started so far has ended (for tests). */
export async function localRootsSettled(): Promise<void> {
  while (probing.size > 0) await new Promise((resolve) => setTimeout(resolve, 1));
}
