import { describe, expect, it } from 'vitest';
import { dsyncFlagFor } from '../../src/system/durable-write.js';
import { INTERRUPT_SIGNALS } from '../../src/cli/interrupt-signals.js';
import { userConfigDir, userRunsDir } from '../../src/system/user-dirs.js';
import { configDir } from '../../src/context/config-file.js';
import { samePath, searchDirectories } from '../../src/context/store-discovery.js';

describe('durable appends per platform', () => {
  it('macOS calls fdatasync (F_FULLFSYNC) instead of trusting O_DSYNC; Linux keeps O_DSYNC; Windows has none', () => {
    expect(dsyncFlagFor('darwin', 0x400000)).toBe(0);
    expect(dsyncFlagFor('linux', 0x1000)).toBe(0x1000);
    expect(dsyncFlagFor('win32', undefined)).toBe(0);
  });
});

describe('interrupt signals', () => {
  it('Ctrl-Break in a Windows console (SIGBREAK) stops a run like Ctrl-C', () => {
    expect(INTERRUPT_SIGNALS).toEqual(expect.arrayContaining(['SIGINT', 'SIGTERM', 'SIGHUP', 'SIGBREAK']));
  });
});

describe('per-user directories: one rule per platform', () => {
  it('Linux: the XDG directories', () => {
    const linux = { env: {}, platform: 'linux' as const, home: '/home/ann' };
    expect(userConfigDir(linux)).toBe('/home/ann/.config/examctl');
    expect(userRunsDir(linux)).toBe('/home/ann/.local/state/examctl/runs');
    expect(userConfigDir({ ...linux, env: { XDG_CONFIG_HOME: '/cfg' } })).toBe('/cfg/examctl');
    expect(userConfigDir({ ...linux, env: { XDG_CONFIG_HOME: 'relative' } })).toBe('/home/ann/.config/examctl');
    expect(userRunsDir({ ...linux, env: { XDG_STATE_HOME: '/state' } })).toBe('/state/examctl/runs');
    expect(configDir({ HOME: '/home/ann' }, 'linux')).toBe('/home/ann/.config/examctl');
  });

  it('Windows: config in %APPDATA%, runs in %LOCALAPPDATA%', () => {
    const env = { APPDATA: 'C:\\Users\\ann\\AppData\\Roaming', LOCALAPPDATA: 'C:\\Users\\ann\\AppData\\Local' };
    const windows = { env, platform: 'win32' as const, home: 'C:\\Users\\ann' };
    expect(userConfigDir(windows)).toBe('C:\\Users\\ann\\AppData\\Roaming\\examctl');
    expect(userRunsDir(windows)).toBe('C:\\Users\\ann\\AppData\\Local\\examctl\\runs');
    expect(userConfigDir({ ...windows, env: {} })).toBe('C:\\Users\\ann\\AppData\\Roaming\\examctl');
  });

  it('macOS: both under ~/Library/Application Support/examctl', () => {
    const mac = { env: {}, platform: 'darwin' as const, home: '/Users/ann' };
    expect(userConfigDir(mac)).toBe('/Users/ann/Library/Application Support/examctl');
    expect(userRunsDir(mac)).toBe('/Users/ann/Library/Application Support/examctl/runs');
  });
});

describe('store search compares paths by the platform rule', () => {
  it('case-insensitively on Windows and macOS, exactly on Linux', () => {
    expect(samePath('C:\\Users\\Ann', 'c:\\users\\ann', 'win32')).toBe(true);
    expect(samePath('/Users/Ann', '/users/ann', 'darwin')).toBe(true);
    expect(samePath('/home/Ann', '/home/ann', 'linux')).toBe(false);
  });

  it('stops below a home directory spelled in another case (Windows)', () => {
    expect(searchDirectories('C:\\Users\\Ann\\exams\\dec', 'c:\\users\\ann', 'win32')).toEqual([
      'C:\\Users\\Ann\\exams\\dec',
      'C:\\Users\\Ann\\exams',
    ]);
    expect(searchDirectories('/Users/Ann/exams', '/users/ann', 'darwin')).toEqual(['/Users/Ann/exams']);
    expect(searchDirectories('/home/Ann/exams', '/home/ann', 'linux')).toEqual([
      '/home/Ann/exams',
      '/home/Ann',
      '/home',
    ]);
  });
});
