import { jsonSchemaOf } from '../../domain/templates.js';
import { printJson, type CommandDeps } from '../../context/command-deps.js';
import type { SchemaOptions } from './schema.options.js';
import { templateKindOf } from '../../report/template-output.js';
import { withOutFile } from '../../context/out-file.js';

/** `examctl schema <kind>`: the JSON Schema (2020-12) of that kind's JSON input file, on stdout. */
export function run({ kind, out }: SchemaOptions, deps: CommandDeps): Promise<number> {
  return withOutFile(out, deps, (to) => printJson(to, jsonSchemaOf(templateKindOf(kind)), 2), 'public');
}
