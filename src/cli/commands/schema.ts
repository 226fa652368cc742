import { jsonSchemaOf } from '../../domain/templates.js';
import type { CommandDeps } from '../context.js';
import type { SchemaOptions } from './schema.options.js';
import { templateKindOf } from './template.js';

/** `examctl schema <kind>`: the JSON Schema (2020-12) of that kind's JSON input file, on stdout. */
export async function run({ kind }: SchemaOptions, deps: CommandDeps): Promise<number> {
  await deps.stdout.write(`${JSON.stringify(jsonSchemaOf(templateKindOf(kind)), null, 2)}\n`);
  return 0;
}
