import { readFileSync } from 'node:fs';
import { getAsset, isSea } from 'node:sea';

/**
 * examctl's version, read once from package.json (dist/ and src/ both sit one level below the
 * package root; the one-file executable holds it as an asset: system/shipped-file.ts). Used by --version, the User-Agent and the OpenAPI document.
 */
export const EXAMCTL_VERSION: string = (() => {
  try {
    const raw = isSea() ? getAsset('package.json', 'utf8') : readFileSync(new URL('../package.json', import.meta.url), 'utf8');
    const version = (JSON.parse(raw) as { version?: unknown }).version;
    return typeof version === 'string' ? version : 'unknown';
  } catch {
    return 'unknown';
  }
})();

/** What `examctl --version` prints: examctl's version and the Node it runs on (cli/main.ts answers it before loading the command tree). */
export const VERSION_LINE = `examctl ${EXAMCTL_VERSION} (Node ${process.version})`;
