// What a journal line of `local serve`'s store costs, in parts (issue 82 item 3), with a built dist/'s store
// code: the per-batch steps each measured alone (CPU per call, 20,000 calls after 2,000), a bare line (a turn and a
// durable write through the thread pool, 1,500 times), then the engine and
// store together in process, no HTTP: the bench's users upserted in batches of 4 and of 64 per event-loop turn
// (5,000 after 2,000), CPU per user (the whole process, and its main thread); the difference is the lines. For
// one transaction a line, bench/ab-commit.mjs.
//   node bench/line-cost.mjs [dist dir of a build]
import { closeSync, constants, fstatSync, mkdtempSync, openSync, readFileSync, readSync, rmSync, write } from 'node:fs';
import { promisify } from 'node:util';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { root } from './paths.mjs';
import { userBody } from './remote-bench.mjs';

const dist = resolve(process.argv[2] ?? join(root, 'dist'));
const { createStore, openStore } = await import(join(dist, 'engine/store/index.js'));
// ManifestReader since hserve4; readManifestSync in an older build (an A/B of the two).
const { ManifestReader, readManifestSync } = await import(join(dist, 'engine/store/manifest.js'));
const { encodeJournalLine } = await import(join(dist, 'engine/store/journal.js'));
const { nextHead } = await import(join(dist, 'engine/store/store-head.js'));
const { createLocalEngine, ensureLocalStore } = await import(join(dist, 'engine/index.js'));

/** CPU ms (user+sys) of this process's main thread so far (its other threads: the thread pool's durable writes, V8's). */
function mainThreadMs() {
  const fields = readFileSync(`/proc/${process.pid}/task/${process.pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

const scratch = mkdtempSync(join(tmpdir(), 'examctl-line-cost-'));
try {
  const dir = join(scratch, 'steps');
  await createStore(dir, []);
  const calls = 20_000;
  const time = (name, step) => {
    for (let i = 0; i < 2_000; i++) step();
    const cpu = process.cpuUsage();
    for (let i = 0; i < calls; i++) step();
    const used = process.cpuUsage(cpu);
    console.log(`${name}: ${((used.user + used.system) / calls).toFixed(1)} us`);
  };
  const current = ManifestReader === undefined ? { readSync: () => readManifestSync(dir) } : new ManifestReader(dir);
  time('CURRENT read', () => current.readSync());
  const journal = join(dir, 'journal-1.ndjson');
  const flags = constants.O_RDWR | constants.O_DSYNC | constants.O_NOFOLLOW | constants.O_NONBLOCK;
  const line = Buffer.alloc(1_000);
  time("the journal's open, fstat, read and close", () => {
    const fd = openSync(journal, flags);
    fstatSync(fd);
    readSync(fd, line, 0, line.length, 0);
    closeSync(fd);
  });
  const head = 'AAAAAAAAAAAAAAAAAAAAAA';
  const changes = [1, 2, 3, 4].map((i) => JSON.stringify(['users', `u${i}`, userBody(i, 'c')]));
  time('a line of 4 users encoded', () => encodeJournalLine(changes, head));
  const encoded = Buffer.from(encodeJournalLine(changes, head));
  time("the line's head (SHA-256)", () => nextHead(head, encoded));

  // The least a line does: an event-loop turn (the session's start) and a durable write through the thread pool.
  const bare = openSync(join(scratch, 'bare'), constants.O_RDWR | constants.O_CREAT | constants.O_DSYNC);
  const lineBytes = Buffer.alloc(1_500, 0x61);
  const writeAt = promisify(write);
  const lines = 1_500;
  const bareMain = mainThreadMs();
  const bareCpu = process.cpuUsage();
  for (let i = 0; i < lines; i++) {
    await new Promise((resolve) => setImmediate(resolve));
    await writeAt(bare, lineBytes, 0, lineBytes.length, i * lineBytes.length);
  }
  const bareUsed = process.cpuUsage(bareCpu);
  console.log(
    `a turn and a 1.5 KB O_DSYNC write through the thread pool: ${((bareUsed.user + bareUsed.system) / lines).toFixed(0)} us, the main thread ${(((mainThreadMs() - bareMain) * 1000) / lines).toFixed(0)}`,
  );
  closeSync(bare);

  for (const batch of [4, 64]) {
    const store = await openStore(await ensureLocalStore(join(scratch, `store-${batch}`)));
    const engine = createLocalEngine({ store });
    const upsert = async (prefix, count) => {
      const texts = Array.from({ length: count }, (_, i) => JSON.stringify(userBody(i + 1, prefix)));
      for (let i = 0; i < count; i += batch) {
        const answers = await Promise.all(
          texts.slice(i, i + batch).map((text) => engine.upsertUser(JSON.parse(text), { onHead() {} })),
        );
        for (const answer of answers) if (!answer.envelope.Success) throw new Error(JSON.stringify(answer.envelope));
      }
    };
    await upsert('w', 2_000);
    const main = mainThreadMs();
    const cpu = process.cpuUsage();
    await upsert('t', 5_000);
    const used = process.cpuUsage(cpu);
    const perUser = (ms) => ((ms * 1000) / 5_000).toFixed(0);
    console.log(
      `engine and store, batches of ${batch}: ${perUser((used.user + used.system) / 1000)} us a user, the main thread ${perUser(mainThreadMs() - main)}`,
    );
    await engine.close();
  }
} finally {
  rmSync(scratch, { recursive: true, force: true });
}
console.log(`load ${readFileSync('/proc/loadavg', 'utf8').split(' ')[0]}`);
