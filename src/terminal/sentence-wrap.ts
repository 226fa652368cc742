/**
 * Help text is read sentence by sentence: each sentence starts a line, commander wraps long ones. A sentence
 * ends at `. ` (or `! ?`) before a capital letter or a backquote; `e.g. the` or `3.5 s` do not end one.
 */
export function sentenceLines(text: string): string {
  return text.replace(/([.!?]) +(?=[A-Z`])/g, (match, stop: string, offset: number) => {
    const before = text.slice(Math.max(0, offset - 4), offset).toLowerCase();
    return ABBREVIATIONS.some((word) => before.endsWith(word)) ? match : `${stop}\n`;
  });
}

const ABBREVIATIONS = ['e.g', 'i.e', 'etc', 'vs'];
