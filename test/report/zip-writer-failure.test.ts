import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { ZipWriter } from '../../src/report/zip-writer.js';

// An output that fails while no row waits for it: the archive's next step says so, nothing
// throws from an event nobody listens to, nothing hangs.
describe('the zip writer over an output that fails', () => {
  it('a failed output fails the entry or the end of the archive with its error', async () => {
    const out = new Writable({ write: (_chunk, _encoding, done) => done(new Error('disk full')) });
    const zip = new ZipWriter(out);
    const entry = await zip.stream('sheet.xml');
    // The archive's first bytes go out, and fail, while the entry is open and no row waits.
    while (!out.destroyed) await new Promise((resolve) => setImmediate(resolve));
    const steps = async (): Promise<void> => {
      for (let i = 0; i < 2_000; i++) await entry.write(`<row r="${i}">${'y'.repeat(200)}</row>`);
      await entry.end();
      await zip.finish();
    };
    await expect(steps()).rejects.toThrow(/disk full|closed before the workbook was complete/);
  });
});
