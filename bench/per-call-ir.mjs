// Issue 82: the instructions of one call of a per-record function of the remote path, on the
// inputs a 10,000-user night gives it (bench/generate.mjs's users, minimalServer's answers), by
// `valgrind --tool=callgrind` of a process calling it 2,000 and then 22,000 times (V8's
// --predictable): (the second count - the first) / 20,000, so start-up and compiling cancel out.
// Exact under load, like callgrind-ir.mjs; a build's dist/ modules are called, so two builds
// (a `git archive` copy beside this one) compare one function's change without a whole run's
// noise (the compiler's and the GC's timing move a whole run by ~1 %).
// Run after `npm run build`:  node bench/per-call-ir.mjs <root of a build> <runOf|validate|canonical|body|entries|mayHold|create|decide>
// In a child:                 node bench/per-call-ir.mjs <root> <which> <calls> --call
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { USER_HEADER, userRow } from './generate.mjs';
import { userBody } from './remote-bench.mjs';

const [rootArg, which, calls, mode] = process.argv.slice(2);
const build = resolve(rootArg ?? '.');
const of = (path) => import(pathToFileURL(join(build, 'dist', path)).href);

/** The first 1,000 users of a night, as the CSV reader gives their cells and validation their requests. */
function users() {
  return Array.from({ length: 1000 }, (_, i) => {
    const cells = userRow(i + 1, 'r');
    const request = Object.fromEntries(
      USER_HEADER.map((name, at) => [name, cells[at]]).filter(([, cell]) => cell !== ''),
    );
    request.SpecialNeeds = request.SpecialNeeds === 'yes';
    if (request.ReasonableAdjustmentPercentage !== undefined)
      request.ReasonableAdjustmentPercentage = Number(request.ReasonableAdjustmentPercentage);
    request.Labels = request.Labels.split('|');
    return { cells, request };
  });
}

/** The call measured, `count` times over the users in turn; returns something of each so none is optimized away. */
async function call(count) {
  const list = users();
  let sink = 0;
  if (which === 'runOf') {
    // A file's own header (no run column): the stale-input check and the report writer ask it of every row.
    const { reportRunOf } = await of('formats/report-csv-contract.js');
    const rows = list.map(({ cells }) => ({ header: USER_HEADER, cells }));
    for (let k = 0; k < count; k++) sink += reportRunOf(rows[k % 1000]) === undefined ? 1 : 0;
  } else if (which === 'validate') {
    // The CLI's validation of one CSV row (`user sync`): the reader's fields (its non-empty cells, a list
    // column split), coerced in place and validated; each call a fresh copy, as each row is a fresh object.
    const { coerceAndValidateUser } = await of('domain/coercion.js');
    const rows = list.map(({ cells }) =>
      Object.fromEntries(
        USER_HEADER.map((name, at) => [name, name === 'Labels' ? cells[at].split('|') : cells[at]]).filter(
          ([, cell]) => cell !== '',
        ),
      ),
    );
    for (let k = 0; k < count; k++) {
      const checked = coerceAndValidateUser({ ...rows[k % 1000] });
      if (!checked.ok) throw new Error(`invalid: ${JSON.stringify(checked.problems)}`);
      sink += checked.value.ExternalId.length;
    }
  } else if (which === 'canonical') {
    const { canonicalJson } = await canonicalOf();
    for (let k = 0; k < count; k++) sink += canonicalJson(list[k % 1000].request).length;
  } else if (which === 'body') {
    // A sent request's body and its request digest, each request a fresh object as a night's are.
    const { requestDigest } = await of('sync/memory-lines.js');
    // A build before canonical-json.ts sent JSON.stringify's text and digested its sorted copy's.
    const { requestBody = JSON.stringify } = await canonicalOf();
    for (let k = 0; k < count; k++) {
      const request = { ...list[k % 1000].request };
      sink += requestBody(request).length + requestDigest(request).length;
    }
  } else if (which === 'entries') {
    // A first night's two lines a user: the intent, then the acknowledgement.
    const { entryBody } = await of('sync/memory-lines.js');
    const run = '20261128T141129.794Z-ad69';
    for (let k = 0; k < count; k++) {
      const { ExternalId: id, FirstName, LastName, Email, ...rest } = list[k % 1000].request;
      const { ReasonableAdjustmentPercentage: _adjustment, ...sent } = rest;
      const intent = { digest: '', run, firstName: FirstName, lastName: LastName, tentative: true };
      const ack = {
        raw: '0E5c4mYx3CVMLBY7mH3wCw',
        firstName: FirstName,
        lastName: LastName,
        email: Email,
        sent,
        joined: run,
        digest: 'NLwHbM6c0IyDwjZFE6BGPyctOBVER_M3g5sZpRZmGAQ',
        run,
        acked: 'LY5GFytn',
      };
      sink += entryBody(id, intent).length + entryBody(id, ack).length;
    }
  } else if (which === 'mayHold') {
    const { createRedactor } = await of('api/redaction.js');
    const gate = createRedactor(['bench-token']);
    const answers = list.map(({ request }) =>
      JSON.stringify({
        Content: { User: { ExternalId: request.ExternalId, FirstName: 'A', LastName: 'B' }, GroupErrors: [] },
        Success: true,
        Errors: null,
      }),
    );
    for (let k = 0; k < count; k++) sink += gate.mayHold(answers[k % 1000]) ? 1 : 0;
  } else if (which === 'create') {
    // `local serve`'s engine and store without HTTP: new users in batches of 4 (one journal line, one
    // directory check each, docs/store.md), on a store in /dev/shm where there is one; every line written on
    // the event loop (under valgrind a write's time would move lines to the thread pool, and the count with them),
    // no compaction (its cost grows with the store: the second count would hold more of it than the first).
    const { ensureLocalStore, createLocalEngine } = await of('engine/index.js');
    const { openStore } = await of('engine/store/index.js');
    const dir = mkdtempSync(join(existsSync('/dev/shm') ? '/dev/shm' : tmpdir(), 'examctl-bench-create-'));
    try {
      const store = await openStore(await ensureLocalStore(join(dir, 'store')), {
        journalWriteTiming: { maxSyncMs: Number.POSITIVE_INFINITY, probeEveryMs: 0 },
        compactAtBytes: Number.POSITIVE_INFINITY,
      });
      const engine = createLocalEngine({ store });
      const call = { onHead: (head) => (sink += head.length) };
      for (let k = 1; k <= count; k += 4) {
        const batch = [0, 1, 2, 3].map((i) => engine.upsertUser(userBody(k + i, 'c'), call));
        for (const { envelope } of await Promise.all(batch)) {
          if (!envelope.Success) throw new Error(`create refused: ${JSON.stringify(envelope.Errors)}`);
          sink += JSON.stringify(envelope).length;
        }
      }
      await engine.close();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  } else if (which === 'decide') {
    // A create's engine work without its line or directory check: a read-only store decides and applies in memory
    // and writes nothing. Validation, the decision and the change's JSON, exact: `create`'s count moves by a few %
    // with the collector's timing (its journal's buffers), this one does not.
    const { ensureLocalStore, createLocalEngine } = await of('engine/index.js');
    const { openStore } = await of('engine/store/index.js');
    const dir = mkdtempSync(join(existsSync('/dev/shm') ? '/dev/shm' : tmpdir(), 'examctl-bench-decide-'));
    try {
      const store = await openStore(await ensureLocalStore(join(dir, 'store')), { readOnly: true });
      const engine = createLocalEngine({ store });
      for (let k = 1; k <= count; k++) {
        const { envelope } = await engine.upsertUser(userBody(k, 'c'), {});
        if (!envelope.Success) throw new Error(`create refused: ${JSON.stringify(envelope.Errors)}`);
        sink += envelope.Content.User.ExternalId.length;
      }
      await engine.close();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  } else throw new Error(`no such call: ${which} (runOf, validate, canonical, body, entries, mayHold, create, decide)`);
  return sink;
}

/** canonical-json.ts, or memory-lines.ts of a build before it. */
function canonicalOf() {
  return existsSync(join(build, 'dist', 'formats', 'canonical-json.js'))
    ? of('formats/canonical-json.js')
    : of('sync/memory-lines.js');
}

function instructions(count) {
  const scratch = mkdtempSync(join(tmpdir(), 'examctl-bench-call-'));
  const out = join(scratch, 'callgrind.out');
  try {
    execFileSync(
      'valgrind',
      [
        '--tool=callgrind',
        `--callgrind-out-file=${out}`,
        process.execPath,
        '--predictable',
        fileURLToPath(import.meta.url),
        build,
        which,
        String(count),
        '--call',
      ],
      { stdio: ['ignore', 'ignore', 'ignore'], env: { ...process.env, NODE_EXTRA_CA_CERTS: undefined } },
    );
    const annotated = execFileSync('callgrind_annotate', [out], { encoding: 'utf8', maxBuffer: 1 << 26 });
    return Number(/([\d,]+) \(100\.0%\)\s+PROGRAM TOTALS/.exec(annotated)[1].replaceAll(',', ''));
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}

if (mode === '--call') {
  if ((await call(Number(calls))) < 0) console.log('never');
} else {
  const [few, many] = [instructions(2000), instructions(22000)];
  console.log(JSON.stringify({ build, which, perCall: Math.round((many - few) / 20000), few, many }));
}
