import { unlinkSync } from 'node:fs';

/**
 * The temp files this process writes in place of others (atomic-file.ts), so an exit that cannot wait (a
 * second Ctrl-C) still removes them. Import-light: the entry point loads it.
 */
export const openTemps = new Set<string>();

/** Removes every temp file still open, synchronously (for an exit that happens now). */
export function removeOpenTempsSync(): void {
  for (const path of openTemps) {
    try {
      unlinkSync(path);
    } catch {
      // Gone already, or not ours to remove any more: nothing to do on the way out.
    }
  }
  openTemps.clear();
}
