/**
 * What `examctl template` prints (docs/input-formats.md, "Templates and schemas"), decided from its
 * flags before anything is written: a template, an example map file or a shipped example file, each
 * refused (exit 2) where the flags ask for something it is not.
 */
import { extname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { isTemplateKind, TEMPLATE_KINDS, type TemplateKind } from '../domain/templates.js';
import { UsageError } from '../system/errors.js';
import { withUtf8Bom } from '../formats/csv-cell.js';

/** `template`'s flags, as its command declares them. */
export interface TemplateRequest {
  readonly kind: string;
  readonly output?: 'csv' | 'xlsx' | 'json' | undefined;
  readonly out?: string | undefined;
  readonly bom?: boolean | undefined;
  readonly mapExample?: boolean | undefined;
  readonly example?: boolean | undefined;
}

/** Text to print, or the kind whose workbook to stream (an .xlsx template). */
export type TemplateOutput = { readonly text: string } | { readonly workbook: TemplateKind };

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

/** What `request` prints; every refusal is thrown here, before an `--out` file is opened. */
export async function templateOutput(request: TemplateRequest): Promise<TemplateOutput> {
  const { kind, output, out, bom, mapExample, example } = request;
  const which = templateKindOf(kind);
  if (example === true) return { text: await shippedExample(which, output, out) };
  if (mapExample === true) return { text: await mapExampleOf(which, output) };
  if (output === 'xlsx') return { workbook: which };
  const files = await import('./template-files.js');
  return { text: output === 'json' ? files.templateJson(which) : withUtf8Bom(files.templateCsv(which), bom !== false) };
}

/** `--map-example`: a map file is JSON (with notes in `//` keys), whatever the template's format would be. */
async function mapExampleOf(which: TemplateKind, output: TemplateRequest['output']): Promise<string> {
  if (output === 'xlsx') throw new UsageError('--map-example prints a map file, which is JSON: leave out -o xlsx');
  const { hasMapExample, mapExample } = await import('../input/map-example.js');
  if (!hasMapExample(which))
    throw new UsageError(
      `--map-example: ${which} has no map file example (invigilators remove reads one id column: --map "Staff ID=UserExtId"); one of users, candidates, sittings, collection`,
    );
  return mapExample(which);
}

/** The README's example files, shipped in the npm package and inside the one-file executable. */
const EXAMPLES: Partial<Record<TemplateKind, string>> = {
  users: 'users.csv',
  sittings: 'sittings.csv',
  collection: 'collection.json',
};

/** Names whose ending says an input format (docs/input-formats.md). */
const FORMAT_ENDINGS = ['.csv', '.json', '.ndjson', '.xlsx'];

/** `--example`: the example file as it ships (its own format), read from the package or the executable. */
async function shippedExample(
  which: TemplateKind,
  output: TemplateRequest['output'],
  out: string | undefined,
): Promise<string> {
  const name = EXAMPLES[which];
  if (name === undefined)
    throw new UsageError(`--example: ${which} has no example file; one of ${Object.keys(EXAMPLES).join(', ')}`);
  // `--out c.csv` for an example that ships as JSON would write JSON under a name the commands read as CSV.
  const asked = extname(out ?? '').toLowerCase();
  if (FORMAT_ENDINGS.includes(asked) && asked !== extname(name))
    throw new UsageError(
      `--example prints ${name} as it ships: --out ${out} names another format; give it a ${extname(name)} name`,
    );
  // Typed (or said by --out's name) only: the default csv is not a wish for a JSON example.
  if (output !== undefined && !name.endsWith(output))
    throw new UsageError(
      `--example prints ${name} as it ships: leave out -o ${output}${output === 'json' ? ' (--json)' : ''}`,
    );
  const { readShippedFile } = await import('../system/shipped-file.js');
  return (await readShippedFile(fileURLToPath(new URL(`../../fixtures/${name}`, import.meta.url)))).toString('utf8');
}
