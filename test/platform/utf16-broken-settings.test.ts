import { describe, expect, it } from 'vitest';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { loadConfig } from '../../src/context/config-file.js';
import { readTokenFile } from '../../src/context/remote-settings.js';
import { withTempDir } from '../support/temp-dir.js';

// A UTF-16LE BOM, then a lone high surrogate (D800) and an odd last byte: no valid UTF-16.
const brokenUtf16 = Buffer.from([0xff, 0xfe, 0x00, 0xd8, 0x41]);

describe('token and config files in broken UTF-16 are refused by the one strict decoder', () => {
  it('a token file is exit 2 naming the file and the fault, nothing sent', () =>
    withTempDir(async (dir) => {
      const file = join(dir, 'token.txt');
      await writeFile(file, brokenUtf16);
      await expect(readTokenFile(file, '--token-file', [])).rejects.toMatchObject({
        exitCode: 2,
        message: expect.stringMatching(/--token-file: .*token\.txt.*invalid UTF-16/),
      });
    }));

  it('a config.json is exit 2 naming the file and the fault', () =>
    withTempDir(async (dir) => {
      await writeFile(join(dir, 'config.json'), brokenUtf16);
      await expect(loadConfig({ EXAMCTL_CONFIG_DIR: dir })).rejects.toMatchObject({
        exitCode: 2,
        message: expect.stringMatching(/config\.json: .*invalid UTF-16/),
      });
    }));
});
