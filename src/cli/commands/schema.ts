import { jsonSchemaOf } from '../../domain/templates.js';
import type { CommandDeps } from '../../context/command-deps.js';
import type { SchemaOptions } from './schema.options.js';
import { templateKindOf } from './template.js';
import { withOutFile } from '../../context/out-file.js';

/** `examctl schema <kind>`: the JSON Schema (2020-12) of that kind's JSON input file, on stdout. */
export function run({ kind, out }: SchemaOptions, deps: CommandDeps): Promise<number> {
  return withOutFile(out, deps, async (to) => {
    await to.stdout.write(`${JSON.stringify(jsonSchemaOf(templateKindOf(kind)), null, 2)}\n`);
    return 0;
  }, 'public');
}
