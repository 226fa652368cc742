import { execFileSync } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../support/cli.js';
import { withTempDir } from '../support/temp-dir.js';

/**
 * The layer rules (.dependency-cruiser.cjs, `npm run layers`; `npm test` checks them here, not
 * in a step of its own) fail on an import against the flow and on a circle, with the rule's name;
 * each room's README and docs/architecture.md say what the rule file says.
 */
const require = createRequire(import.meta.url);
const CONFIG = join(ROOT, '.dependency-cruiser.cjs');
const DEPCRUISE = join(ROOT, 'node_modules/dependency-cruiser/bin/dependency-cruise.mjs');

type Rule = { name: string; comment: string; from: { path: string } };
const rules = (require(CONFIG) as { forbidden: Rule[] }).forbidden;
/** What each room may import, as its rule's comment says it (the rule is built from the same list). */
const MAY_IMPORT = new Map(
  rules
    .filter((rule) => rule.name.startsWith('room-'))
    .map((rule) => [
      rule.name.slice('room-'.length),
      [...(rule.comment.split(' may import only ')[1] ?? '').matchAll(/src\/([a-z-]+)\//g)].map((match) => match[1]!),
    ]),
);

function cruise(cwd: string): { code: number; output: string } {
  try {
    return {
      code: 0,
      output: execFileSync(process.execPath, [DEPCRUISE, 'src', '--config', CONFIG], {
        cwd,
        encoding: 'utf8',
        stdio: 'pipe',
      }),
    };
  } catch (error) {
    const failed = error as { status: number; stdout: string; stderr: string };
    return { code: failed.status, output: `${failed.stdout}${failed.stderr}` };
  }
}

describe('the layer rules', () => {
  it('hold for src/ today', () => {
    expect(cruise(ROOT)).toMatchObject({ code: 0 });
  });

  it('fail on an import against the flow and on a circle, naming the rule', async () => {
    await withTempDir(async (dir) => {
      for (const room of ['domain', 'context', 'system']) mkdirSync(join(dir, 'src', room), { recursive: true });
      writeFileSync(
        join(dir, 'tsconfig.json'),
        JSON.stringify({ compilerOptions: { module: 'nodenext', moduleResolution: 'nodenext', strict: true } }),
      );
      writeFileSync(join(dir, 'src/context/command-deps.ts'), 'export interface CommandDeps { cwd: string }\n');
      writeFileSync(
        join(dir, 'src/domain/upward.ts'),
        "import type { CommandDeps } from '../context/command-deps.js';\nexport type Upward = CommandDeps;\n",
      );
      writeFileSync(join(dir, 'src/system/a.ts'), "import { b } from './b.js';\nexport const a = (): number => b;\n");
      writeFileSync(
        join(dir, 'src/system/b.ts'),
        "export const b = 1;\nexport const later = async (): Promise<unknown> => (await import('./a.js')).a;\n",
      );
      const { code, output } = cruise(dir);
      expect(code).not.toBe(0);
      expect(output).toContain('room-domain: src/domain/upward.ts → src/context/command-deps.ts');
      expect(output).toMatch(/no-circular: src\/system\/(a|b)\.ts/);
    }, 'examctl-layers-');
  });

  it('refuse a new file at src/ root that a room imports, and a new folder no rule names (imported, importing, or alone)', async () => {
    await withTempDir(async (dir) => {
      for (const folder of ['domain', 'system', 'helpers', 'stray'])
        mkdirSync(join(dir, 'src', folder), { recursive: true });
      writeFileSync(
        join(dir, 'tsconfig.json'),
        JSON.stringify({ compilerOptions: { module: 'nodenext', moduleResolution: 'nodenext', strict: true } }),
      );
      writeFileSync(join(dir, 'src/defaults.ts'), 'export const DEFAULT_RATE = 10;\n');
      writeFileSync(join(dir, 'src/common.ts'), 'export const common = 1;\n');
      writeFileSync(join(dir, 'src/helpers/help.ts'), 'export const help = 2;\n');
      writeFileSync(join(dir, 'src/stray/alone.ts'), 'export const alone = 3;\n');
      writeFileSync(
        join(dir, 'src/domain/rule.ts'),
        "import { DEFAULT_RATE } from '../defaults.js';\nimport { common } from '../common.js';\nimport { help } from '../helpers/help.js';\nexport const rule = DEFAULT_RATE + common + help;\n",
      );
      writeFileSync(
        join(dir, 'src/system/fine.ts'),
        "import { DEFAULT_RATE } from '../defaults.js';\nexport const fine = DEFAULT_RATE;\n",
      );
      const { code, output } = cruise(dir);
      expect(code).not.toBe(0);
      expect(output).toContain('room-domain: src/domain/rule.ts → src/common.ts');
      expect(output).toContain('no-import-outside-the-plan: src/domain/rule.ts → src/helpers/help.ts');
      expect(output).toContain('no-orphan-outside-the-plan: src/stray/alone.ts');
      expect(output).not.toContain('src/defaults.ts');
      expect(output).not.toContain('src/system/fine.ts');
    }, 'examctl-layers-');
  });

  it("keep src/domain/ pure: a terminal library fails, zod passes; also where node_modules is a link (the Node tier's scratch copy)", async () => {
    await withTempDir(async (dir) => {
      mkdirSync(join(dir, 'src', 'domain'), { recursive: true });
      symlinkSync(join(ROOT, 'node_modules'), join(dir, 'node_modules'), 'dir');
      writeFileSync(
        join(dir, 'tsconfig.json'),
        JSON.stringify({ compilerOptions: { module: 'nodenext', moduleResolution: 'nodenext', strict: true } }),
      );
      writeFileSync(join(dir, 'src/domain/spinner.ts'), "import ora from 'ora';\nexport const spinner = ora;\n");
      writeFileSync(join(dir, 'src/domain/schema.ts'), "import { z } from 'zod';\nexport const id = z.string();\n");
      const { code, output } = cruise(dir);
      expect(code).not.toBe(0);
      expect(output).toMatch(/domain-is-pure: src\/domain\/spinner\.ts → \S*node_modules\/ora\//);
      expect(output).not.toContain('src/domain/schema.ts');
    }, 'examctl-layers-');
  });

  it('name every folder of src/ as a room, and each room has a README saying what it may import', () => {
    const folders = readdirSync(join(ROOT, 'src')).filter((name) => statSync(join(ROOT, 'src', name)).isDirectory());
    expect(folders.sort()).toEqual([...MAY_IMPORT.keys()].sort());
    for (const [room, may] of MAY_IMPORT) {
      const readme = readFileSync(join(ROOT, 'src', room, 'README.md'), 'utf8');
      const line = /^May import: (.*)\.$/m.exec(readme)?.[1] ?? '';
      expect(
        [...line.matchAll(/`([a-z-]+)\/`/g)].map((match) => match[1]),
        room,
      ).toEqual(may);
    }
  });

  it('docs/architecture.md lists every room with what it may import', () => {
    const page = readFileSync(join(ROOT, 'docs/architecture.md'), 'utf8');
    for (const [room, may] of MAY_IMPORT) {
      const row = new RegExp(`^\\| \`${room}/\` \\|[^|]*\\| (.*) \\|$`, 'm').exec(page)?.[1];
      expect(row, room).toBeDefined();
      expect(
        [...row!.matchAll(/`([a-z-]+)\/`/g)].map((match) => match[1]),
        room,
      ).toEqual(may);
    }
  });

  it('at most three files stand at src/ root', () => {
    expect(readdirSync(join(ROOT, 'src')).filter((name) => name.endsWith('.ts')).length).toBeLessThanOrEqual(3);
  });
});

describe('the cli room stays wiring', () => {
  // A file there past 300 lines has decisions in it that belong in a room below (issue 61).
  it('no file in src/cli is over 300 lines', () => {
    const files = (dir: string): string[] =>
      readdirSync(dir).flatMap((name) =>
        statSync(join(dir, name)).isDirectory() ? files(join(dir, name)) : [join(dir, name)],
      );
    const long = files(join(ROOT, 'src/cli')).filter((file) => readFileSync(file, 'utf8').split('\n').length - 1 > 300);
    expect(long).toEqual([]);
  });
});
