// A callgrind out file's instructions in all and by kind (TurboFan, GC, SHA-256, JSON, ICs, JIT code, other
// builtins, the rest), from `callgrind_annotate`'s per-function (exclusive) counts; `executed` is the total less
// TurboFan and GC, whose timing moves a run's total by several % (a server's by up to 8 % in its first thousands
// of requests, bench/README.md, hserve6). Used by callgrind-ir.mjs and serve-ir.mjs.
import { execFileSync } from 'node:child_process';

const KINDS = [
  ['turbofan', /compiler::|Zone/],
  ['gc', /Scaveng|Mark|Sweep|Heap::|heap::|Evacuat|Pretenur|MemoryChunk|IteratePointers|SizeFromMap|BodyDescriptor/],
  ['sha256', /sha256|SHA256|EVP_Digest/],
  ['json', /Json/],
  ['ic', /Builtins_.*IC/],
  ['jit', /^\?\?\?:0x/],
  ['builtins', /Builtins_/],
];

/** { total, executed, byKind } of the out file at `file`. */
export function instructionsByKind(file) {
  const annotated = execFileSync('callgrind_annotate', ['--threshold=100', file], {
    encoding: 'utf8',
    maxBuffer: 1 << 28,
  });
  const byKind = {};
  let total = 0;
  for (const line of annotated.split('\n')) {
    const match = /^\s*([\d,]+) \(\s*[\d.]+%\)\s+(.*)$/.exec(line);
    if (match === null) continue;
    const count = Number(match[1].replaceAll(',', ''));
    if (match[2].includes('PROGRAM TOTALS')) total = count;
    else {
      const kind = KINDS.find(([, pattern]) => pattern.test(match[2]))?.[0] ?? 'other';
      byKind[kind] = (byKind[kind] ?? 0) + count;
    }
  }
  return { total, executed: total - (byKind.turbofan ?? 0) - (byKind.gc ?? 0), byKind };
}
