/** The errno code of a failed fs call (ENOENT...), for messages and the cases handled by name. */
export function errnoCode(error: unknown): string | undefined {
  return (error as NodeJS.ErrnoException | undefined)?.code;
}
