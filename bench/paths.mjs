import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const root = join(dirname(fileURLToPath(import.meta.url)), '..');
// What users run (bin/examctl over the bundle, scripts/build-bundle.mjs), never dist/'s modules.
export const cliPath = join(root, 'bin', 'examctl');
export const probePath = join(root, 'bench', 'rss-probe.mjs');
export const cpuProbePath = join(root, 'bench', 'cpu-probe.mjs');
