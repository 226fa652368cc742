// Every figure with a goal is judged where it is printed and once more at the end of
// `npm run bench`, in one table: a reader sees which goals hold on this machine, now.
// A row states its goal as `goal: '<= 100'` (or >=, <, >) beside a numeric `value`; a part that
// judges a goal itself (a curve, "no growth") sets `met: true | false`.
import { loadavg } from 'node:os';

const COMPARE = { '<=': (a, b) => a <= b, '>=': (a, b) => a >= b, '<': (a, b) => a < b, '>': (a, b) => a > b };

/** true/false when the row's goal can be judged, undefined when it has none. */
export function goalMet(row) {
  if (typeof row.met === 'boolean') return row.met;
  const match = /^\s*(<=|>=|<|>)\s*([\d.,]+)/.exec(String(row.goal ?? ''));
  if (!match || typeof row.value !== 'number') return undefined;
  return COMPARE[match[1]](row.value, Number(match[2].replace(/,/g, '')));
}

const judged = [];

/** The part's rows with a `met` column (yes/no) where a goal is judged; remembers them for `printGoals`. */
export function judge(part, rows) {
  return rows.map((row) => {
    const met = goalMet(row);
    if (met === undefined) return row;
    judged.push({
      part,
      measure: row.measure ?? row.run ?? '',
      value: row.value,
      goal: row.goal ?? '',
      met: met ? 'yes' : 'NO',
    });
    return { ...row, met: met ? 'yes' : 'NO' };
  });
}

export function printGoals() {
  if (judged.length === 0) return;
  const missed = judged.filter((row) => row.met !== 'yes').length;
  process.stdout.write(
    `\n== goals: ${judged.length - missed} of ${judged.length} met on this machine (load average ${loadavg()
      .map((value) => value.toFixed(1))
      .join(', ')})\n`,
  );
  console.table(judged);
}
