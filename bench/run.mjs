// `npm run bench`: prints figures and ratios against the goals of the issues. Never run in tests.
// Each part generates its own deterministic data under bench/.data/ (git-ignored).
import { runDryRunBench } from './dry-run-bench.mjs';

const only = process.argv[2];

function section(title, goal) {
  process.stdout.write(`\n== ${title}\n${goal ? `goal: ${goal}\n` : ''}`);
}

if (!only || only === 'dry-run') {
  section('user sync --dry-run vs raw csv-parse (500k-row users file)', 'ratio >= 0.6, peak RSS <= 256 MB and flat as the file grows');
  console.table(await runDryRunBench());
}
