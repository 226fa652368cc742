import { cp, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, expect } from 'vitest';
import { serveLocalStore } from '../../src/server/index.js';
import type { LocalServer } from '../../src/server/serve-local.js';
import { ROOT } from './cli.js';
import { examctlStep as examctl } from './in-process.js';

/** A store of the demo world in a fresh directory, served in this process on demand, copied and put back as a backup is. */
export interface RestoredStorePlace {
  dir: string;
  /** Runs under `runs/`, sync memories under `synced/`, the demo token. */
  env: Record<string, string>;
  /** Where `local serve` listens: the same port again after a restore. */
  port: number;
  store: () => string;
  /** `local serve` of the store, in this process. */
  serve: () => Promise<void>;
  /** Stops serving; `restore` and `served` still take it as served. */
  close: () => Promise<void>;
  /** Whether the test serves the store. */
  served: () => boolean;
  /** A copy of the store in `name` (its LOCK left out: a server may hold it). */
  copy: (name?: string) => Promise<void>;
  /** The server stopped, the store replaced by the copy (timestamps kept, as `cp -a`), served again if it was. */
  restore: (name?: string) => Promise<void>;
}

/** Each test of the file in its own RestoredStorePlace, filled before it and gone after it. */
export function restoredStorePlace(prefix: string): RestoredStorePlace {
  let server: LocalServer | undefined;
  const place: RestoredStorePlace = {
    dir: '',
    env: {},
    port: 0,
    store: () => join(place.dir, 'store'),
    async serve() {
      server = await serveLocalStore({ storeDir: place.store(), port: place.port });
      place.port = server.port;
    },
    close: async () => server?.close(),
    served: () => server !== undefined,
    async copy(name = 'copy') {
      await cp(place.store(), join(place.dir, name), { recursive: true, filter: (from) => !from.endsWith('LOCK') });
    },
    async restore(name = 'copy') {
      await place.close();
      await rm(place.store(), { recursive: true, force: true });
      await cp(join(place.dir, name), place.store(), { recursive: true, preserveTimestamps: true });
      if (place.served()) await place.serve();
    },
  };
  beforeEach(async () => {
    place.dir = await mkdtemp(join(tmpdir(), prefix));
    place.env = {
      EXAMCTL_RUNS_DIR: join(place.dir, 'runs'),
      EXAMCTL_SYNC_DIR: join(place.dir, 'synced'),
      EXAMCTL_TOKEN: 'dev-token',
    };
    place.port = 0;
    const init = ['local', 'init', '--store', place.store(), '--seed', join(ROOT, 'fixtures/world.json')];
    expect((await examctl(init, place.dir, place.env)).code).toBe(0);
  });
  afterEach(async () => {
    await place.close();
    server = undefined;
    await rm(place.dir, { recursive: true, force: true });
  });
  return place;
}
