/** Records for a terminal: a table when it fits, else one block per record, URLs whole (docs/human.md, "Tables"). */
import Table from 'cli-table3';
import { stripVTControlCharacters } from 'node:util';
import { displayText, head, paint, tableOptions } from './table-format.js';
import { longestLine } from './text-layout.js';

interface RecordTableOptions {
  /** The terminal's width; absent (a pipe, a file), the table is written as wide as it is. */
  width?: number;
  color?: boolean;
  /** How many leading columns make a block's heading line. */
  headingColumns: number;
}

/** The widest line of a rendered text, in terminal columns (ANSI colour codes take none). */
export function renderedWidth(text: string): number {
  return longestLine(stripVTControlCharacters(text));
}

/** `labels`: the header in the table, and each value's label in a block. */
export function renderRecordTable(
  labels: readonly string[],
  rows: readonly (readonly unknown[])[],
  options: RecordTableOptions,
): string {
  const color = options.color === true;
  const cells = rows.map((row) => labels.map((_, index) => displayText(row[index])));
  const table = new Table(tableOptions({ head: head(labels, color) }));
  for (const row of cells) table.push([...row]);
  const text = `${table.toString()}\n`;
  if (options.width === undefined || renderedWidth(text) <= options.width) return text;
  return renderBlocks(labels.slice(options.headingColumns), cells, color, options.headingColumns);
}

function renderBlocks(
  labels: readonly string[],
  rows: readonly string[][],
  color: boolean,
  headingColumns: number,
): string {
  const labelWidth = Math.max(0, ...labels.map((label) => label.length));
  const blocks = rows.map((row) => {
    const heading = row
      .slice(0, headingColumns)
      .filter((cell) => cell !== '')
      .join('  ');
    const lines = [paint(heading, 'bold', color)];
    row.slice(headingColumns).forEach((cell, index) => {
      if (cell === '') return;
      lines.push(`  ${paint((labels[index] ?? '').padEnd(labelWidth), 'cyan', color)}  ${cell}`);
    });
    return lines.join('\n');
  });
  return blocks.length === 0 ? '' : `${blocks.join('\n\n')}\n`;
}
