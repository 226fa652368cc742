import type { PlannedAction } from '../api/integration-api.js';
import type { Problem } from '../domain/problem.js';
import type { SourceRef } from '../input/record.js';

/** cli-contract.md, "Run report". */
export type ItemStatus = 'ok' | 'partial' | 'failed' | 'skipped';

export interface ReportItem {
  source: SourceRef;
  /** The record's external id (user ExternalId, ScheduleExtId, collection ExternalId, invigilator id); null when unknown. */
  id: string | null;
  status: ItemStatus;
  errors: Problem[];
  /** Local engine only: created / updated / unchanged (with --dry-run: what would happen). */
  action?: PlannedAction;
}

export type ReportTarget = { kind: 'local'; store: string } | { kind: 'remote'; baseUrl: string };

export interface ReportSummary {
  total: number;
  ok: number;
  partial: number;
  failed: number;
  skipped: number;
}


/** A whole run's report as the JSON document carries it; `runs show` rebuilds one from a journal. */
export interface RunReport {
  command: string;
  target: ReportTarget;
  dryRun: boolean;
  summary: ReportSummary;
  items: ReportItem[];
}
