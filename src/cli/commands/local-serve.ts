import { randomInt } from 'node:crypto';
import { once } from 'node:events';
import { printJson, type CommandDeps } from '../../context/command-deps.js';
import { onlyGlobals } from '../../flags/global-options.js';
import { goneStore, storeCreatedLine, usedStorePath } from '../../context/target.js';
import type { LocalServeOptions } from './local-serve.options.js';
import { terminalLine } from '../../formats/terminal-text.js';
import { setInterruptNotice } from '../../terminal/interrupt-notice.js';
import { DEMO_WORLD } from '../../system/shipped-file.js';

/**
 * `examctl local serve`: the local engine over HTTP until SIGINT/SIGTERM. main.ts owns the
 * process signals and turns both into `deps.signal`; a test hands its own AbortSignal.
 */
export async function run(
  { host, port, publicUrl, faults: faultsFlag, faultsSeed, syncDir: _syncDir, ...globals }: LocalServeOptions,
  deps: CommandDeps,
): Promise<number> {
  const options = onlyGlobals(globals);
  const { serveLocalStore, parseFaultSpec, describeFaultSpec, lineBatcher } = await import('../../server/index.js');
  const { clockFromEnv, lockTimeoutFromEnv } = await import('../../engine/local-target.js');
  const storeDir = await usedStorePath(options, deps);
  await goneStore(storeDir, deps, 'nothing was created or served');
  const lines = lineBatcher((text) => void deps.stderr.write(text));
  // A request's path and an error's message come from the network: inert on the operator's terminal.
  const log = (line: string): void => lines.log(terminalLine(line));
  /** A line through the gate that must come after every logged one (the request log is written once per turn). */
  const say = async (line: string): Promise<void> => {
    lines.flush();
    await deps.stderr.write(`${terminalLine(line)}\n`);
  };
  // Both are checked before the store is opened: a bad SPEC is a usage error with nothing started.
  const faultSpec = faultsFlag === undefined ? undefined : parseFaultSpec(faultsFlag);
  const faults =
    faultSpec === undefined ? undefined : { spec: faultSpec, seed: faultsSeed ?? randomInt(0, 0xffffffff) };
  const server = await serveLocalStore({
    storeDir,
    host,
    port,
    publicUrl,
    now: clockFromEnv(deps.env),
    lockTimeoutMs: lockTimeoutFromEnv(deps.env),
    log,
    faults,
    onCreated: (location) => log(storeCreatedLine(location)),
  });
  try {
    const { isLoopbackHost } = await import('../../api/url-policy.js');
    if (!isLoopbackHost(host)) {
      // Plain HTTP: the EAPI token of every caller crosses the network readable.
      log(`warning: serving plain http on ${host}: tokens travel in clear text; bind 127.0.0.1 or put TLS in front`);
    }
    if (server.acceptsPublishedToken) {
      log(
        `warning: this store accepts the token published in ${DEMO_WORLD} and the README: anyone who can reach this port can change it; ` +
          'make a store with a token of its own (examctl local init, or --seed a world with your own Settings.ApiTokens)',
      );
    }
    if (faults) log(`injecting faults ${describeFaultSpec(faults.spec)} with --faults-seed ${faults.seed}`);
    await say(`listening on ${server.url}`);
    if (options.json) await printJson(deps, { listening: server.url, store: server.store });
    if (publicUrl !== undefined) await say(`public URL ${publicUrl} (the OpenAPI document's servers)`);
    // Before it is said how to stop: a Ctrl-C from then on is told in the server's words.
    setInterruptNotice('interrupted: stopping the server after the requests in flight (Ctrl-C again to quit now)');
    await say(`store ${server.store}; tokens: the world's Settings.ApiTokens; stop with Ctrl-C`);
    if (deps.signal?.aborted !== true) await once(deps.signal ?? new EventTarget(), 'abort');
    await say('stopping: finishing requests in flight');
  } finally {
    await server.close();
  }
  await say('stopped');
  return 0;
}
