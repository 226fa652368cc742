import { ensureBuilt } from './cli.js';

/** Vitest global setup: dist/ is current before any test file spawns bin/examctl (see ensureBuilt). */
export default function setup(): void {
  ensureBuilt();
}
