import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const root = join(dirname(fileURLToPath(import.meta.url)), '..');
export const cliPath = join(root, 'dist', 'cli', 'main.js');
export const probePath = join(root, 'bench', 'rss-probe.mjs');
export const cpuProbePath = join(root, 'bench', 'cpu-probe.mjs');
