import { readFileSync } from 'node:fs';
import { getAsset, isSea } from 'node:sea';

/**
 * The first match of `pattern` in a file that ships with examctl, by its path from the package root
 * (dist/ and src/ sit one level below it; the executable's asset: system/shipped-file.ts).
 */
function shipped(path: string, pattern: RegExp): string | undefined {
  try {
    return pattern.exec(
      isSea() ? getAsset(path, 'utf8') : readFileSync(new URL(`../${path}`, import.meta.url), 'utf8'),
    )?.[1];
  } catch {
    return undefined;
  }
}

/** Used by --version, the User-Agent and the OpenAPI document. */
export const EXAMCTL_VERSION = shipped('package.json', /"version"\s*:\s*"([^"]*)"/) ?? 'unknown';

/** The program's SHA-256 the build wrote beside it (12 digits); `dev` from src/. */
export const BUILD_ID = shipped('dist/bundle/examctl.sha256', /^([0-9a-f]{12})/) ?? 'dev';

/** What `examctl --version` prints (cli/main.ts answers it before loading the command tree). */
// The zone rules (Node's ICU tz data) decide --timezone's offsets: the one-file executable carries its own.
export const VERSION_LINE = `examctl ${EXAMCTL_VERSION} (Node ${process.version}, zone rules ${process.versions.tz ?? 'unknown'}, build ${BUILD_ID})`;
