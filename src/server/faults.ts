import { UsageError } from '../system/errors.js';
import { mulberry32 } from '../system/seeded-random.js';

/**
 * Fault injection for `local serve --faults SPEC [--faults-seed N]` (docs/remote.md, "Fault
 * injection"): one draw a request, the kinds sharing [0, 100) in SPEC order; latency drawn apart.
 */
type FaultKind = '429' | '500' | '503' | 'reset' | 'lost';

export interface FaultSpec {
  /** The kinds with their percentages (0 < P <= 100), in SPEC order. */
  faults: readonly { kind: FaultKind; percent: number }[];
  /** Added latency drawn uniformly from [minMs, maxMs] per request. */
  latency?: { minMs: number; maxMs: number };
}

export interface FaultDecision {
  /** undefined: the request is served normally (after `latencyMs`). */
  kind?: FaultKind;
  latencyMs: number;
}

const KINDS: ReadonlySet<string> = new Set<FaultKind>(['429', '500', '503', 'reset', 'lost']);
/** Up to a minute: more is a hung server, which the client's timeouts already cover. */
const MAX_LATENCY_MS = 60_000;

/** Parses SPEC; a bad part is a usage error naming it. */
export function parseFaultSpec(spec: string): FaultSpec {
  const faults: { kind: FaultKind; percent: number }[] = [];
  let latency: FaultSpec['latency'];
  const parts = spec.split(',').map((part) => part.trim());
  if (parts.every((part) => part === ''))
    throw new UsageError('--faults: empty; expected e.g. 503:10%,reset:2%,latency:5-50ms');
  let total = 0;
  for (const part of parts) {
    const bad = (why: string): UsageError => new UsageError(`--faults: "${part}": ${why}`);
    const colon = part.indexOf(':');
    if (colon < 0) throw bad('expected KIND:P% (429, 500, 503, reset, lost) or latency:A-Bms');
    const kind = part.slice(0, colon).trim().toLowerCase();
    const value = part.slice(colon + 1).trim();
    if (kind === 'latency') {
      if (latency !== undefined) throw bad('latency given twice');
      const match = /^(\d+)\s*-\s*(\d+)\s*ms$/i.exec(value);
      if (!match) throw bad('expected latency:A-Bms, e.g. latency:5-50ms');
      const minMs = Number(match[1]);
      const maxMs = Number(match[2]);
      if (minMs > maxMs) throw bad('A must not exceed B');
      if (maxMs > MAX_LATENCY_MS) throw bad(`at most ${MAX_LATENCY_MS}ms`);
      latency = { minMs, maxMs };
      continue;
    }
    if (!KINDS.has(kind)) throw bad('unknown kind; expected 429, 500, 503, reset, lost or latency');
    const match = /^(\d+(?:\.\d+)?)\s*%$/.exec(value);
    if (!match) throw bad('expected a percentage such as 10%');
    const percent = Number(match[1]);
    if (!(percent > 0 && percent <= 100)) throw bad('the percentage must be more than 0 and at most 100');
    if (faults.some((fault) => fault.kind === kind)) throw bad(`${kind} given twice`);
    total += percent;
    if (total > 100) throw bad('the percentages add up to more than 100%');
    faults.push({ kind: kind as FaultKind, percent });
  }
  return latency === undefined ? { faults } : { faults, latency };
}

/** The per-request draw: `next()` is called once per API request, in order of arrival. */
export function faultPlan(spec: FaultSpec, seed: number): { next(): FaultDecision } {
  const random = mulberry32(seed);
  return {
    next() {
      const draw = random() * 100;
      let upTo = 0;
      const kind = spec.faults.find((fault) => {
        upTo += fault.percent;
        return draw < upTo;
      })?.kind;
      const latency = spec.latency;
      const latencyMs =
        latency === undefined ? 0 : latency.minMs + Math.floor(random() * (latency.maxMs - latency.minMs + 1));
      return kind === undefined ? { latencyMs } : { kind, latencyMs };
    },
  };
}

/** The canonical text of a spec, for the start-up line (`503:10%,latency:5-50ms`). */
export function describeFaultSpec(spec: FaultSpec): string {
  const parts = spec.faults.map((fault) => `${fault.kind}:${fault.percent}%`);
  if (spec.latency) parts.push(`latency:${spec.latency.minMs}-${spec.latency.maxMs}ms`);
  return parts.join(',');
}
