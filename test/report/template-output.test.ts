/**
 * What `examctl template` prints is decided in report/ (template-output.ts), from its flags alone, before
 * a file is opened: the command only writes it (test/cli/template-example.test.ts runs the CLI).
 */
import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { templateOutput } from '../../src/report/template-output.js';
import { UsageError } from '../../src/system/errors.js';

const fixture = (name: string) => readFile(new URL(`../../fixtures/${name}`, import.meta.url), 'utf8');

describe('templateOutput', () => {
  it('a template as text (csv with its BOM unless --no-bom, json), an xlsx one as the kind to stream', async () => {
    const csv = await templateOutput({ kind: 'users' });
    expect('text' in csv && csv.text.startsWith('\ufeffExternalId,')).toBe(true);
    const bare = await templateOutput({ kind: 'users', bom: false });
    expect('text' in bare && bare.text.startsWith('ExternalId,')).toBe(true);
    const json = await templateOutput({ kind: 'candidates', output: 'json' });
    expect('text' in json && JSON.parse(json.text)).toBeTruthy();
    expect(await templateOutput({ kind: 'schedules', output: 'xlsx' }).catch((error: unknown) => error)).toBeInstanceOf(
      UsageError,
    );
    expect(await templateOutput({ kind: 'sittings', output: 'xlsx' })).toEqual({ workbook: 'sittings' });
  });

  it('--example: the shipped file as it is; an --out or -o naming another format, or a kind without one, refused', async () => {
    expect(await templateOutput({ kind: 'collection', example: true, out: 'c.json' })).toEqual({
      text: await fixture('collection.json'),
    });
    const refusals: [Parameters<typeof templateOutput>[0], readonly string[]][] = [
      [{ kind: 'collection', example: true, out: 'c.csv' }, ['collection.json', '--out c.csv']],
      [{ kind: 'users', example: true, output: 'xlsx' }, ['users.csv', '-o xlsx']],
      [{ kind: 'candidates', example: true }, ['candidates', 'users, sittings, collection']],
      [{ kind: 'invigilators', mapExample: true }, ['--map-example', 'invigilators']],
      [{ kind: 'users', mapExample: true, output: 'xlsx' }, ['--map-example', '-o xlsx']],
    ];
    for (const [request, facts] of refusals) {
      const refused = await templateOutput(request).catch((error: unknown) => error);
      expect(refused, JSON.stringify(request)).toBeInstanceOf(UsageError);
      expect((refused as UsageError).code).toBe('E2000');
      for (const fact of facts) expect((refused as UsageError).message).toContain(fact);
    }
  });
});
