import { describe, expect, it } from 'vitest';
import { decodeChecksummedLine, encodeChecksummedLine } from '../../src/system/checksummed-line.js';
import { serveLocalStore } from '../../src/server/index.js';
import { withTempDir } from '../cli/helpers.js';
import { join } from 'node:path';

/**
 * Issue 60, "one bounded JSON reader for every JSON input": examctl's own lines (journals, sync
 * memories: a state service can forge one, crc and all) and the bodies `local serve` is sent pass
 * the same scanner as files, so a value nested past the limit is refused, never walked.
 */

const deep = (levels: number): string => `${'['.repeat(levels)}${']'.repeat(levels)}`;

describe('the one bounded JSON reader behind examctl own lines and local serve', () => {
  it('a checksummed line whose body nests 100,000 deep is refused as a damaged line; one within the limit reads', () => {
    const forged = decodeChecksummedLine(
      Buffer.from(encodeChecksummedLine(`{"i":"u-1","f":${deep(100_000)}}`).trimEnd()),
    );
    expect(forged).toEqual({ ok: false, reason: 'invalid JSON' });
    const whole = decodeChecksummedLine(Buffer.from(encodeChecksummedLine(`{"i":"u-1","f":${deep(10)}}`).trimEnd()));
    expect(whole.ok).toBe(true);
  });

  it('local serve answers a request body nested 100,000 deep with 400, saying so', async () => {
    await withTempDir(async (dir) => {
      const server = await serveLocalStore({ storeDir: join(dir, 'store'), port: 0 });
      try {
        const answer = await fetch(`${server.url}/api/v1/integrations/user`, {
          method: 'POST',
          headers: { authorization: 'EAPI dev-token', 'content-type': 'application/json' },
          body: `{"ExternalId":"u-1","Hierarchies":${deep(100_000)}}`,
        });
        expect(answer.status).toBe(400);
        expect(await answer.text()).toContain('nested too deep');
      } finally {
        await server.close();
      }
    });
  });
});
