// The entries of the few directories the read policy lists per confined call (/home, the directories of `*`
// entries), read again only when the directory changed: a warm call stats them instead of reading them whole.
import { readdir, stat } from 'node:fs/promises';

interface Listing {
  dev: bigint;
  ino: bigint;
  mtimeNs: bigint;
  ctimeNs: bigint;
  names: readonly string[];
}

/**
 * A listing is kept only when its directory last changed this long before the stat that saw it. The kernel stamps a
 * change with a coarse clock, so a change made in the same tick as the read could carry the very time already seen;
 * a directory that changed recently is read again at each call until it has been quiet for this long.
 */
const SETTLED_NS = 1_000_000_000n;
const listings = new Map<string, Listing>();

/** The names in `dir` now (rejects as readdir does, for a directory that is absent or unreadable). */
export async function dirEntries(dir: string): Promise<readonly string[]> {
  const now = BigInt(Date.now()) * 1_000_000n;
  const seen = await stat(dir, { bigint: true });
  const known = listings.get(dir);
  if (known && known.dev === seen.dev && known.ino === seen.ino && known.mtimeNs === seen.mtimeNs && known.ctimeNs === seen.ctimeNs) {
    return known.names;
  }
  const names = await readdir(dir);
  if (now - seen.mtimeNs > SETTLED_NS && now - seen.ctimeNs > SETTLED_NS) {
    listings.set(dir, { dev: seen.dev, ino: seen.ino, mtimeNs: seen.mtimeNs, ctimeNs: seen.ctimeNs, names });
  } else {
    listings.delete(dir);
  }
  return names;
}
