import type { CommandDeps } from '../../context/command-deps.js';
import { withOutFile } from '../../context/out-file.js';
import type { TemplateOptions } from './template.options.js';

/**
 * `examctl template <kind>`: what report/template-output.ts decides it prints, on stdout or `--out` (xlsx refused on
 * a terminal).
 */
export async function run(options: TemplateOptions, deps: CommandDeps): Promise<number> {
  const printed = await (await import('../../report/template-output.js')).templateOutput(options);
  return withOutFile(
    options.out,
    deps,
    async (to) => {
      if ('text' in printed) await to.stdout.write(printed.text);
      else {
        const [{ writeWorkbookToStdout }, { writeTemplateXlsx }] = await Promise.all([
          import('../../terminal/workbook-stdout.js'),
          import('../../report/template-files.js'),
        ]);
        const kind = printed.workbook;
        await writeWorkbookToStdout(to, `examctl template ${kind} -o xlsx > ${kind}.xlsx`, (stream) =>
          writeTemplateXlsx(kind, stream),
        );
      }
    },
    'public',
  );
}
