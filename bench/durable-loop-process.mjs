// Issue 82's reference: the bare undici loop of remote-bench.mjs with examctl's guarantees and
// nothing else, started as a process of its own (cold, as the CLI is). Each batch of 64 intents
// is one JSON line per user holding the SHA-256 of its request body, made durable (write, then
// fdatasync, through the thread pool as examctl's appends are) before any of its requests goes;
// each answer is appended as a line after it comes and made durable with the next batch (or at the
// end). No input file is read, nothing is validated, no report is written: that is the CLI's
// work beyond the guarantees (limit-bench.mjs measures it as a dry run of the same file).
// With a second file and a bound (`examctl` writes), the guarantees as examctl keeps them: each
// batch durable in both files (the run journal's `sent` lines and the sync memory's intents,
// docs/runs.md and docs/sync.md), and each file's answers durable within that many milliseconds
// when no batch comes first (the run journal's outcome lines, the memory's acknowledgements).
// Spawned by spawnedDurableLoop with the CPU probe preloaded:
//   node durable-loop-process.mjs <url> <token> <users> <concurrency> <prefix> <journal file> [<second file> <answers' bound ms>]
import { createHash } from 'node:crypto';
import { open } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { Pool } from 'undici';
import { closedLoop, userBody } from './remote-bench.mjs';

const BATCH = 64;

export async function durableLoop(target, users, concurrency, prefix, file, second, boundMs) {
  const journal = await durableFiles([file, ...(second === undefined ? [] : [second])]);
  const pool = new Pool(target.url, { connections: concurrency, pipelining: 1 });
  const headers = {
    authorization: `EAPI ${target.token}`,
    'content-type': 'application/json',
    accept: 'application/json',
  };
  const bodies = new Map();
  let answers = [];
  let durableTo = 0;
  let flushing;
  // The answers' bound: a timer from the first answer not yet durable, unless a batch takes it first.
  let timer;
  const answersDurable = () => {
    timer = undefined;
    if (answers.length === 0) return;
    // A write in flight took the answers before these: they go right after it.
    if (flushing !== undefined) return void (timer = setTimeout(answersDurable, 1));
    const lines = answers;
    answers = [];
    flushing = journal.append(lines.join('')).finally(() => (flushing = undefined));
  };
  /** The next batch's intents and the answers so far, written and synced: resolves once they are durable. */
  const flush = async () => {
    clearTimeout(timer);
    timer = undefined;
    const lines = answers;
    answers = [];
    const end = Math.min(durableTo + BATCH, users);
    for (let i = durableTo + 1; i <= end; i++) {
      const body = JSON.stringify(userBody(i, prefix));
      bodies.set(i, body);
      lines.push(`${JSON.stringify({ i, sha256: createHash('sha256').update(body).digest('hex') })}\n`);
    }
    await journal.append(lines.join(''));
    durableTo = end;
  };
  const durable = async (i) => {
    while (i > durableTo) {
      flushing ??= flush().finally(() => (flushing = undefined));
      await flushing;
    }
  };
  const seconds = await closedLoop(users, concurrency, async (i) => {
    await durable(i);
    const body = bodies.get(i);
    bodies.delete(i);
    const res = await pool.request({ method: 'POST', path: '/api/v1/integrations/user', headers, body });
    const envelope = JSON.parse(await res.body.text());
    if (!envelope.Success) throw new Error(`durable loop: unexpected failure ${JSON.stringify(envelope.Errors)}`);
    answers.push(`${JSON.stringify({ i, status: res.statusCode, ok: true })}\n`);
    if (boundMs !== undefined) timer ??= setTimeout(answersDurable, boundMs);
  });
  clearTimeout(timer);
  await flushing;
  await journal.append(answers.join(''));
  await journal.close();
  await pool.close();
  return users / seconds;
}

/** The files as one: text appended to each, written and synced in parallel (one thread-pool round trip each). */
async function durableFiles(files) {
  const handles = await Promise.all(files.map((name) => open(name, 'a')));
  return {
    append: (text) => Promise.all(handles.map((handle) => handle.write(text).then(() => handle.datasync()))),
    close: () => Promise.all(handles.map((handle) => handle.close())),
  };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const [url, token, users, concurrency, prefix, file, second, boundMs] = process.argv.slice(2);
  await durableLoop(
    { url, token },
    Number(users),
    Number(concurrency),
    prefix,
    file,
    second,
    boundMs === undefined ? undefined : Number(boundMs),
  );
}
