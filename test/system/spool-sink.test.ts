import { describe, expect, it } from 'vitest';
import { SpoolSink } from '../../src/system/text-sink.js';
import { StringSink } from '../support/string-sink.js';

describe('SpoolSink read back', () => {
  it('gives back megabytes of spilled text exactly, characters of 2 to 4 bytes cut by its 1 MiB chunks included', async () => {
    const out = new StringSink();
    const spool = new SpoolSink(out, 1000);
    // 3 MiB and more of text whose characters are 1, 2, 3 and 4 bytes long: chunk ends fall inside characters.
    const parts = Array.from({ length: 40_000 }, (_, i) => `${i} é€😀 `.repeat(7));
    for (const part of parts) await spool.write(part);
    expect(out.text).toBe('');
    await spool.commit();
    expect(out.text.length).toBe(parts.join('').length);
    expect(out.text).toBe(parts.join(''));
  });
});
