import { describe, expect, it } from 'vitest';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { loadConfig } from '../../src/context/config-file.js';
import { readTokenFile } from '../../src/context/remote-settings.js';
import { withTempDir } from '../support/temp-dir.js';

const utf16le = (text: string) => Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(text, 'utf16le')]);
const utf16be = (text: string) => Buffer.from([0xfe, 0xff, ...Buffer.from(text, 'utf16le').swap16()]);

describe('token and config files written by Windows tools', () => {
  it("a token file from PowerShell 5.1's `echo $t > token.txt` (UTF-16LE, BOM, CRLF) reads as the token", () =>
    withTempDir(async (dir) => {
      const file = join(dir, 'token.txt');
      for (const bytes of [
        utf16le('s3cr3t-Token.42\r\n'),
        utf16be('s3cr3t-Token.42\r\n'),
        Buffer.from('\uFEFFs3cr3t-Token.42\r\n', 'utf8'),
      ]) {
        await writeFile(file, bytes);
        expect(await readTokenFile(file, '--token-file', [])).toBe('s3cr3t-Token.42');
      }
    }));

  it('a token file that decodes to garbage (UTF-16 without a BOM) is refused with a hint, not sent', () =>
    withTempDir(async (dir) => {
      const file = join(dir, 'token.txt');
      await writeFile(file, Buffer.from('s3cr3t\r\n', 'utf16le'));
      await expect(readTokenFile(file, '--token-file', [])).rejects.toMatchObject({
        exitCode: 2,
        message: expect.stringMatching(/does not hold a plain token.*Set-Content -Encoding ascii/),
      });
    }));

  it('a config.json saved as UTF-16 with a BOM is read', () =>
    withTempDir(async (dir) => {
      const config = { version: 1, profiles: { prod: { baseUrl: 'https://exam.example.com' } } };
      await writeFile(
        join(dir, 'config.json'),
        utf16le(`${JSON.stringify(config, null, 2).replace(/\n/g, '\r\n')}\r\n`),
      );
      const loaded = await loadConfig({ EXAMCTL_CONFIG_DIR: dir });
      expect(loaded.profiles.prod?.baseUrl).toBe('https://exam.example.com');
    }));
});
