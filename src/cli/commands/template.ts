import { extname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { isTemplateKind, TEMPLATE_KINDS, type TemplateKind } from '../../domain/templates.js';
import { UsageError } from '../../system/errors.js';
import type { CommandDeps } from '../../context/command-deps.js';
import { withUtf8Bom } from '../../formats/csv-cell.js';
import type { TemplateOptions } from './template.options.js';
import { withOutFile } from '../../context/out-file.js';

/** The kind an admin meant by a command's own word (`schedules`: the file schedule push reads is `sittings`). */
const MEANT: Readonly<Record<string, { kind: TemplateKind; file: string }>> = {
  user: { kind: 'users', file: 'user sync' },
  schedule: { kind: 'sittings', file: 'schedule push' },
  schedules: { kind: 'sittings', file: 'schedule push' },
  sitting: { kind: 'sittings', file: 'schedule push' },
  candidate: { kind: 'candidates', file: 'schedule push' },
  collections: { kind: 'collection', file: 'collection add' },
  invigilator: { kind: 'invigilators', file: 'invigilators remove' },
};

/** The kind argument of `template` and `schema`, or a usage error listing the kinds. */
export function templateKindOf(kind: string): TemplateKind {
  if (isTemplateKind(kind)) return kind;
  const meant = MEANT[kind.toLowerCase()];
  const hint = meant === undefined ? '' : `${meant.file} reads "${meant.kind}"; `;
  throw new UsageError(`unknown kind "${kind}": ${hint}one of ${TEMPLATE_KINDS.join(', ')}`);
}

/** `examctl template <kind>`: an input file the command accepts as it is, on stdout (xlsx refused on a terminal). */
export function run(
  { kind, output, out, bom, mapExample, example }: TemplateOptions,
  deps: CommandDeps,
): Promise<number> {
  if (example === true && mapExample === true)
    throw new UsageError('--example and --map-example each print a file: give one');
  if (example === true) {
    refuseOtherFormat(kind, out);
    return withOutFile(out, deps, (to) => writeExample(kind, output, to), 'public');
  }
  if (mapExample === true) return withOutFile(out, deps, (to) => writeMapExample(kind, output, to), 'public');
  return withOutFile(out, deps, (to) => writeTemplate(kind, output ?? 'csv', bom, to), 'public');
}

/** `--map-example`: a map file is JSON (with notes in `//` keys), whatever the template's format would be. */
async function writeMapExample(kind: string, output: TemplateOptions['output'], deps: CommandDeps): Promise<number> {
  const which = templateKindOf(kind);
  if (output === 'xlsx') throw new UsageError('--map-example prints a map file, which is JSON: leave out -o xlsx');
  const { hasMapExample, mapExample } = await import('../../input/map-example.js');
  if (!hasMapExample(which))
    throw new UsageError(
      `--map-example: ${which} has no map file example (invigilators remove reads one id column: --map "Staff ID=UserExtId"); one of users, candidates, sittings, collection`,
    );
  await deps.stdout.write(mapExample(which));
  return 0;
}

/** The README's example files, shipped in the npm package and inside the one-file executable. */
const EXAMPLES: Partial<Record<TemplateKind, string>> = {
  users: 'users.csv',
  sittings: 'sittings.csv',
  collection: 'collection.json',
};

/** Names whose ending says an input format (docs/input-formats.md). */
const FORMAT_ENDINGS = ['.csv', '.json', '.ndjson', '.xlsx'];

/** `--out c.csv` for an example that ships as JSON would write JSON under a name the commands read as CSV. */
function refuseOtherFormat(kind: string, out: string | undefined): void {
  const name = EXAMPLES[templateKindOf(kind)];
  const asked = extname(out ?? '').toLowerCase();
  if (name === undefined || !FORMAT_ENDINGS.includes(asked) || asked === extname(name)) return;
  throw new UsageError(
    `--example prints ${name} as it ships: --out ${out} names another format; give it a ${extname(name)} name`,
  );
}

/** `--example`: the example file as it ships (its own format), read from the package or the executable. */
async function writeExample(kind: string, output: TemplateOptions['output'], deps: CommandDeps): Promise<number> {
  const which = templateKindOf(kind);
  const name = EXAMPLES[which];
  if (name === undefined)
    throw new UsageError(`--example: ${which} has no example file; one of ${Object.keys(EXAMPLES).join(', ')}`);
  // Typed (or said by --out's name) only: the default csv is not a wish for a JSON example.
  if (output !== undefined && !name.endsWith(output))
    throw new UsageError(
      `--example prints ${name} as it ships: leave out -o ${output}${output === 'json' ? ' (--json)' : ''}`,
    );
  const { readShippedFile } = await import('../../system/shipped-file.js');
  await deps.stdout.write(
    (await readShippedFile(fileURLToPath(new URL(`../../../fixtures/${name}`, import.meta.url)))).toString('utf8'),
  );
  return 0;
}

async function writeTemplate(
  kind: string,
  output: NonNullable<TemplateOptions['output']>,
  bom: boolean | undefined,
  deps: CommandDeps,
): Promise<number> {
  const which = templateKindOf(kind);
  const files = await import('../../report/template-files.js');
  if (output === 'xlsx') {
    const { writeWorkbookToStdout } = await import('../../terminal/workbook-stdout.js');
    await writeWorkbookToStdout(deps, `examctl template ${which} -o xlsx > ${which}.xlsx`, (stream) =>
      files.writeTemplateXlsx(which, stream),
    );
  } else {
    await deps.stdout.write(
      output === 'json' ? files.templateJson(which) : withUtf8Bom(files.templateCsv(which), bom !== false),
    );
  }
  return 0;
}
