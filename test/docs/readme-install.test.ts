import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../support/cli.js';

/**
 * The README's install check shows what the linux-x64 executable prints: `sha256sum --check`'s line and
 * `--version`'s, of this package's version and the Node the release pins (scripts/release-pins.json). The
 * line's format is the executable's own (test/package/executable.test.ts runs it where Node 24 is at hand).
 */
describe("the README's install check", () => {
  const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
  const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string };
  const pins = JSON.parse(readFileSync(join(ROOT, 'scripts', 'release-pins.json'), 'utf8')) as {
    targets: Record<string, { node: string; file: string }>;
  };

  it('shows the checksum line and the version line of the pinned linux-x64 build', () => {
    const linux = pins.targets['linux-x64']!;
    const block = /```\n(.+): OK\n(examctl .+)\n```/.exec(readme);
    expect(block, 'README shows the install check output').not.toBeNull();
    expect(block![1]).toBe(linux.file);
    const node = linux.node.split('@')[1];
    expect(block![2]).toMatch(
      new RegExp(`^examctl ${pkg.version} \\(Node v${node}, zone rules \\d{4}[a-z], build [0-9a-f]{12}\\)$`),
    );
  });
});
