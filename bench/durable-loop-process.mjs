// Issue 82's reference: the bare undici loop of remote-bench.mjs with examctl's guarantees and
// nothing else, started as a process of its own (cold, as the CLI is). Each batch of 64 intents
// is one JSON line per user holding the SHA-256 of its request body, made durable (write, then
// fdatasync, through the thread pool as examctl's appends are) before any of its requests goes;
// each answer is appended as a line after it comes and made durable with the next batch (or at the
// end). No input file is read, nothing is validated, no report is written: that is the CLI's
// work beyond the guarantees (limit-bench.mjs measures it as a dry run of the same file).
// Spawned by spawnedDurableLoop with the CPU probe preloaded:
//   node durable-loop-process.mjs <url> <token> <users> <concurrency> <prefix> <journal file>
import { createHash } from 'node:crypto';
import { open } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { Pool } from 'undici';
import { closedLoop, userBody } from './remote-bench.mjs';

const BATCH = 64;

export async function durableLoop(target, users, concurrency, prefix, file) {
  const journal = await open(file, 'a');
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
  /** The next batch's intents and the answers so far, written and synced: resolves once they are durable. */
  const flush = async () => {
    const lines = answers;
    answers = [];
    const end = Math.min(durableTo + BATCH, users);
    for (let i = durableTo + 1; i <= end; i++) {
      const body = JSON.stringify(userBody(i, prefix));
      bodies.set(i, body);
      lines.push(`${JSON.stringify({ i, sha256: createHash('sha256').update(body).digest('hex') })}\n`);
    }
    await journal.write(lines.join(''));
    await journal.datasync();
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
  });
  await flushing;
  await journal.write(answers.join(''));
  await journal.datasync();
  await journal.close();
  await pool.close();
  return users / seconds;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const [url, token, users, concurrency, prefix, file] = process.argv.slice(2);
  await durableLoop({ url, token }, Number(users), Number(concurrency), prefix, file);
}
