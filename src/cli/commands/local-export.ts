import { exportWorldText } from '../../engine/index.js';
import { say } from '../../formats/terminal-text.js';
import { openStore, storeExists } from '../../engine/store/index.js';
import type { CommandDeps } from '../../context/command-deps.js';
import { withOutFile } from '../../context/out-file.js';
import type { LocalExportOptions } from './local-export.options.js';
import { noStoreError, usedStorePath } from '../../context/target.js';

/** `examctl local export`: the store as a world file on stdout, in a stable order so exports diff cleanly. */
export async function run({ out, ...options }: LocalExportOptions, deps: CommandDeps): Promise<number> {
  const location = await usedStorePath(options, deps);
  // Exporting is reading: a missing store is not created just to print the demo world.
  if (!(await storeExists(location)))
    throw noStoreError(location, 'create one with "examctl local init" (or --store to point at one)');
  const store = await openStore(location, { readOnly: true });
  try {
    await withOutFile(
      out,
      deps,
      async (to) => {
        for (const chunk of exportWorldText(store.state)) await to.stdout.write(chunk);
      },
      'secret',
      'world',
    );
  } finally {
    await store.close();
  }
  // Said once the file is in place, as a run's "report written to".
  await say(deps, `exported local store ${location}`);
  return 0;
}
