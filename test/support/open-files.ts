import { readdir, readlink } from 'node:fs/promises';

/** What this process's descriptors are open on (Linux: /proc/self/fd): a file closed, not left to the collector, is not among them. */
export async function openFiles(): Promise<string[]> {
  const fds = await readdir('/proc/self/fd');
  return Promise.all(fds.map((fd) => readlink(`/proc/self/fd/${fd}`).catch(() => '')));
}

/** The spool files (src/system/text-sink.ts) this process holds: removed while open, only a descriptor keeps one. */
export async function openSpools(): Promise<number> {
  return (await openFiles()).filter((target) => target.endsWith('/spool (deleted)')).length;
}
