import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../support/cli.js';

/** The README's "Documentation" list names every page of docs/, once, and no page that is not there. */
describe("the README's list of the docs", () => {
  it('is the pages of docs/', () => {
    const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
    const section = /^## Documentation\n([\s\S]*?)\n## /m.exec(readme);
    expect(section, 'README has a Documentation section').not.toBeNull();
    const listed = [...section![1]!.matchAll(/^- \[docs\/([a-z0-9-]+\.md)\]\(docs\/\1\)/gm)].map((match) => match[1]);
    const pages = readdirSync(join(ROOT, 'docs')).filter((name) => name.endsWith('.md'));
    expect([...listed].sort()).toEqual([...pages].sort());
  });
});
