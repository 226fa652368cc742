import { open, type FileHandle } from 'node:fs/promises';
import { join } from 'node:path';
import { vi } from 'vitest';

/**
 * Holds the first call of a FileHandle method whose arguments or result satisfy `when` until
 * released (`before`: held before the call is made, else after it returned): a run is driven to a
 * step and stopped there, no timing. Restored by vi.restoreAllMocks.
 */
export async function holdFileCall(
  dir: string,
  method: 'readFile' | 'truncate',
  when: (result: unknown) => boolean,
  before = false,
): Promise<{ reached: Promise<void>; release: () => void }> {
  const probe = await open(join(dir, 'probe'), 'w');
  const proto = Object.getPrototypeOf(probe) as FileHandle;
  await probe.close();
  const methods = proto as unknown as Record<'readFile' | 'truncate', (...args: unknown[]) => Promise<unknown>>;
  const real = methods[method];
  let reached!: () => void;
  let release!: () => void;
  const reachedP = new Promise<void>((resolve) => (reached = resolve));
  const released = new Promise<void>((resolve) => (release = resolve));
  let held = false;
  const hold = async (seen: unknown): Promise<void> => {
    if (held || !when(seen)) return;
    held = true;
    reached();
    await released;
  };
  vi.spyOn(methods, method).mockImplementation(async function (this: FileHandle, ...args: unknown[]) {
    if (before) await hold(args);
    const result = await real.apply(this, args);
    if (!before) await hold(result);
    return result;
  });
  return { reached: reachedP, release };
}
