import { printJson, type CommandDeps } from '../../context/command-deps.js';
import { explainedCode, explanationLines } from '../../report/code-explanation.js';
import { printLine } from '../../formats/terminal-text.js';
import type { ExplainOptions } from './explain.options.js';

/** `examctl explain CODE` (report/code-explanation.ts): as text, or one --json document. */
export async function run({ code, json }: ExplainOptions, deps: CommandDeps): Promise<number> {
  const entry = explainedCode(code);
  if (json === true) await printJson(deps, entry);
  else for (const line of explanationLines(entry)) await printLine(deps, line);
  return 0;
}
