import { posix, win32 } from 'node:path';

/**
 * The per-user directories, one rule per platform (docs/windows.md, "Where examctl keeps its
 * files"); an absolute `XDG_CONFIG_HOME` is honoured on every platform: whoever sets it wants it.
 */
export interface UserDirsContext {
  env: Readonly<Record<string, string | undefined>>;
  platform: NodeJS.Platform;
  home: string;
}

function pathFor(platform: NodeJS.Platform) {
  return platform === 'win32' ? win32 : posix;
}

function absoluteXdg(value: string | undefined, platform: NodeJS.Platform): string | undefined {
  // The XDG spec ignores a relative value.
  return value !== undefined && value !== '' && pathFor(platform).isAbsolute(value) ? value : undefined;
}

export function userConfigDir({ env, platform, home }: UserDirsContext): string {
  const path = pathFor(platform);
  const xdg = absoluteXdg(env.XDG_CONFIG_HOME, platform);
  if (xdg !== undefined) return path.join(xdg, 'examctl');
  if (platform !== 'darwin' && platform !== 'win32') return path.join(home, '.config', 'examctl');
  if (platform === 'darwin') return path.join(home, 'Library', 'Application Support', 'examctl');
  return path.join(env.APPDATA || path.join(home, 'AppData', 'Roaming'), 'examctl');
}

export function userRunsDir({ env, platform, home }: UserDirsContext): string {
  const path = pathFor(platform);
  if (platform === 'darwin') return path.join(home, 'Library', 'Application Support', 'examctl', 'runs');
  if (platform === 'win32') return path.join(env.LOCALAPPDATA || path.join(home, 'AppData', 'Local'), 'examctl', 'runs');
  const state = absoluteXdg(env.XDG_STATE_HOME, platform);
  return path.join(state ?? path.join(home, '.local', 'state'), 'examctl', 'runs');
}
