import { describe, expect, it } from 'vitest';
import { mkdtemp, open, rm, writeFile } from 'node:fs/promises';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  describeSystemError,
  storeFileUnreadable,
  systemErrorCode,
  systemErrorWords,
} from '../../src/system/system-error-words.js';
import { StoreDamagedError } from '../../src/system/errors.js';

const USER_CODES = [
  'ENOENT',
  'EACCES',
  'EPERM',
  'EISDIR',
  'ENOTDIR',
  'ENOSPC',
  'EROFS',
  'EEXIST',
  'EMFILE',
  'ECONNREFUSED',
  'ENOTFOUND',
  'ETIMEDOUT',
  'ECONNRESET',
];

describe('system errors in words', () => {
  it.each(USER_CODES)('%s has words of its own, never the bare code', (code) => {
    const words = systemErrorWords(code);
    expect(words).toBeDefined();
    expect(words).not.toContain(code);
  });

  it('ENOENT names what is missing when the caller knows', () => {
    expect(systemErrorWords('ENOENT', 'directory')).toBe('the directory does not exist');
    expect(systemErrorWords('ENOENT', 'file')).toBe('the file does not exist');
  });

  it('every TLS certificate code gets words, known ones their own', () => {
    expect(systemErrorWords('CERT_HAS_EXPIRED')).toContain('expired');
    expect(systemErrorWords('CERT_SOMETHING_NEW')).toBe("the server's TLS certificate was not accepted");
    expect(systemErrorWords('DEPTH_ZERO_SELF_SIGNED_CERT')).toContain('NODE_EXTRA_CA_CERTS');
  });

  it('finds the code through causes (fetch failed -> ECONNREFUSED) and keeps it in parentheses', () => {
    const wrapped = new TypeError('fetch failed', {
      cause: Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:1'), { code: 'ECONNREFUSED' }),
    });
    expect(systemErrorCode(wrapped)).toBe('ECONNREFUSED');
    expect(describeSystemError(wrapped)).toMatch(/^the connection was refused: .*\(ECONNREFUSED\)$/);
    expect(describeSystemError(Object.assign(new Error('x'), { code: 'EWEIRD' }))).toBe('x');
    expect(describeSystemError(new Error('plain message'))).toBe('plain message');
  });

  it('the errors Node really raises are put into words', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'examctl-words-'));
    try {
      const missing = await open(join(dir, 'no-such-dir', 'report.csv'), 'wx').catch((error: unknown) => error);
      expect(describeSystemError(missing, 'directory')).toBe('the directory does not exist (ENOENT)');
      const isDir = await open(dir, 'w').catch((error: unknown) => error);
      expect(describeSystemError(isDir)).toBe('it is a directory, not a file (EISDIR)');
      await writeFile(join(dir, 'plain'), '');
      const notDir = await open(join(dir, 'plain', 'x'), 'w').catch((error: unknown) => error);
      expect(describeSystemError(notDir)).toBe('a part of the path is a file, not a directory (ENOTDIR)');
      const refused = await new Promise<unknown>((resolve) => {
        // Port 1 on loopback: nothing listens there.
        const socket = connect({ host: '127.0.0.1', port: 1 });
        socket.on('error', resolve);
        socket.on('connect', () => resolve(new Error('unexpected listener on port 1')));
      });
      expect(describeSystemError(refused)).toContain('(ECONNREFUSED)');
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it("a store's file that cannot be read: exit 3, its path and the system's words, the error kept as the cause", () => {
    const cause = Object.assign(new Error('EACCES: permission denied'), { code: 'EACCES' });
    const error = storeFileUnreadable('/s/CURRENT', cause);
    expect(error).toBeInstanceOf(StoreDamagedError);
    expect(error.exitCode).toBe(3);
    expect(error.message).toBe(`/s/CURRENT: cannot read: ${describeSystemError(cause, 'file')}`);
    expect(error.cause).toBe(cause);
  });
});
