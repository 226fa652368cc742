import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { getAsset, isSea } from 'node:sea';

/**
 * The first match of `pattern` in a file that ships with examctl, by its path from the package root
 * (dist/ and src/ sit one level below it; the executable's asset: system/shipped-file.ts).
 */
function shipped(path: string, pattern: RegExp): string | undefined {
  try {
    return pattern.exec(
      // A path, not a URL: every start reads these (scripts/build-bundle.mjs makes import.meta.dirname the built
      // file's).
      isSea() ? getAsset(path, 'utf8') : readFileSync(join(import.meta.dirname, '..', path), 'utf8'),
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
