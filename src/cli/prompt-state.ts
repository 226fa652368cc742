/**
 * Whether a prompt is waiting for an answer, for the entry point: a prompt whose input ended
 * (Ctrl-D on a terminal) leaves nothing for the process to wait on, and the process would
 * otherwise end by itself with exit 0. Import-free, so the entry point loads no prompt code.
 */
let open = 0;

export function promptOpened(): void {
  open += 1;
}

export function promptClosed(): void {
  open -= 1;
}

export function promptIsOpen(): boolean {
  return open > 0;
}
