/**
 * Plain-text layout for terminal tables: greedy word wrap, comma lists wrapped to a width, and
 * fitting a table's columns to the terminal. Knows nothing of what the cells mean.
 */

/** Comma-separated parts, as many to a line as fit in `width` (a line that is not the last ends with the comma). */
export function wrapList(parts: readonly string[], width: number): string {
  const lines: string[] = [];
  let line = '';
  for (const [index, part] of parts.entries()) {
    const next = line === '' ? part : `${line}, ${part}`;
    // A line that is not the last ends with a comma: it must fit too.
    const comma = index < parts.length - 1 ? 1 : 0;
    if (line !== '' && next.length + comma > width) {
      lines.push(`${line},`);
      line = part;
    } else {
      line = next;
    }
  }
  if (line !== '') lines.push(line);
  return lines.join('\n');
}

/**
 * How a table meets a narrow terminal, step by step until it fits: one space of padding less; then each
 * natural break in turn; only then are the widest `wrappable` columns cut, down to `minWrapped`.
 */
export interface FitPlan {
  naturalBreaks: ReadonlyArray<{ column: number; to: number }>;
  wrappable: readonly number[];
  minWrapped: number;
}

/** Rows wrapped so the table fits `width` columns (borders included); unchanged when it fits or no width is known. */
export function fitToWidth(
  rows: readonly string[][],
  width: number | undefined,
  plan: FitPlan,
): { rows: string[][]; tight: boolean } {
  const copy = rows.map((row) => [...row]);
  if (width === undefined) return { rows: copy, tight: false };
  const widths = rows[0]!.map((_, column) => Math.max(...rows.map((row) => longestLine(row[column] ?? ''))));
  let padding = 2;
  // Each column adds its padding and one border; the table one more border.
  const total = (): number => widths.reduce((sum, value) => sum + value + padding + 1, 1);
  if (total() <= width) return { rows: copy, tight: false };
  padding = 1;
  for (const { column, to } of plan.naturalBreaks) {
    if (total() <= width) break;
    // Straight to the natural break (a time on two lines, a name a word a line), never below its longest word.
    const longestWord = Math.max(
      ...rows.map((row) => Math.max(...(row[column] ?? '').split(/[\s_]/).map((word) => word.length))),
    );
    widths[column] = Math.min(widths[column]!, Math.max(to, longestWord));
  }
  while (total() > width) {
    const widest = plan.wrappable.reduce(
      (best, column) => (widths[column]! > widths[best]! ? column : best),
      plan.wrappable[0]!,
    );
    if (widths[widest]! <= plan.minWrapped) break;
    widths[widest] = widths[widest]! - 1;
  }
  return { rows: copy.map((row) => row.map((cell, column) => wrapText(cell, widths[column]!))), tight: padding === 1 };
}

export function longestLine(text: string): number {
  return Math.max(...text.split('\n').map((line) => line.length));
}

/** Greedy word wrap to `width` characters; a word longer than a line is cut (nothing is lost). */
export function wrapText(text: string, width: number): string {
  if (width < 1) return text;
  const out: string[] = [];
  for (const paragraph of text.split('\n')) {
    let line = '';
    for (let word of paragraph.split(' ')) {
      while (word.length > width) {
        if (line !== '') {
          out.push(line);
          line = '';
        }
        // Break after an underscore when one is close enough (NOT_ / SATISFACTORY), else cut.
        const underscore = word.lastIndexOf('_', width - 1);
        const cut = underscore > 0 ? underscore + 1 : width;
        out.push(word.slice(0, cut));
        word = word.slice(cut);
      }
      const next = line === '' ? word : `${line} ${word}`;
      if (next.length > width && line !== '') {
        out.push(line);
        line = word;
      } else {
        line = next;
      }
    }
    out.push(line);
  }
  return out.join('\n');
}
