import type * as fsPromises from 'node:fs/promises';

/**
 * A `fs/promises` open for a vi.mock of a full disk: a file whose path matches `fake.full` opens,
 * but its writes fail with ENOSPC. Imported inside the mock's factory (it imports no fs itself).
 */
export function fullDiskOpen(actual: typeof fsPromises, fake: { full: RegExp | undefined }): typeof fsPromises.open {
  return async (...args: Parameters<typeof actual.open>) => {
    const handle = await actual.open(...args);
    if (fake.full?.test(String(args[0]))) {
      handle.write = (async () => {
        throw Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC' });
      }) as unknown as typeof handle.write;
    }
    return handle;
  };
}
