/**
 * A list of records for a terminal: a table when it fits the width, else one block per record
 * (its heading, then `label  value` lines), so nothing is cut and no border is broken by the
 * terminal's own wrapping. Below ~60 columns a table of four or more columns rarely fits; the
 * blocks stay readable at any width, and a long value (a URL) is left whole for copying.
 */
import Table from 'cli-table3';
import { stripVTControlCharacters } from 'node:util';
import { displayText, head, paint, tableOptions } from './table-format.js';
import { longestLine } from './text-layout.js';

interface RecordColumn {
  /** Header in the table and label in a block. */
  label: string;
  /** Right-aligned in the table (counts). */
  numeric?: boolean;
}

interface RecordTableOptions {
  /** The terminal's width; absent (a pipe, a file), the table is written as wide as it is. */
  width?: number;
  color?: boolean;
  /** How many leading columns make a block's heading line (default 1). */
  headingColumns?: number;
}

/** The widest line of a rendered text, in terminal columns (ANSI colour codes take none). */
export function renderedWidth(text: string): number {
  return longestLine(stripVTControlCharacters(text));
}

export function renderRecordTable(columns: readonly RecordColumn[], rows: readonly (readonly unknown[])[], options: RecordTableOptions = {}): string {
  const color = options.color === true;
  const cells = rows.map((row) => columns.map((_, index) => displayText(row[index])));
  const table = new Table(
    tableOptions({
      head: head(columns.map((column) => column.label), color),
      colAligns: columns.map((column) => (column.numeric ? 'right' : 'left')),
    }),
  );
  for (const row of cells) table.push([...row]);
  const text = `${table.toString()}\n`;
  if (options.width === undefined || renderedWidth(text) <= options.width) return text;
  return renderBlocks(columns, cells, color, options.headingColumns ?? 1);
}

function renderBlocks(columns: readonly RecordColumn[], rows: readonly string[][], color: boolean, headingColumns: number): string {
  const labels = columns.slice(headingColumns).map((column) => column.label);
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
