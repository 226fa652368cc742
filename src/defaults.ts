/**
 * Defaults a user can see, named once: `--help` texts, the code that applies them and the docs
 * (a span `<!-- default: remote-concurrency -->8<!-- /default -->`, rewritten by
 * `npm run docs:flags`, checked by test/docs/flag-tables.test.ts) all read these. No imports:
 * option tables and the remote client alike load it.
 */

/** Requests in flight at once on the remote target (`--concurrency`, a profile's `concurrency`). */
export const REMOTE_CONCURRENCY = 8;

/**
 * In flight at once toward `examctl local serve` when neither `--concurrency` nor a profile names a
 * number, from the first answer that says the server is one (its header; a `user sync` asks the store's head
 * before its first write, so from its first request): the served store writes
 * the requests that arrive together as one durable line, so a wider window is fewer lines (a 5,000-user
 * first night: ~1,375 at 8; bench/README.md, "local serve's default window").
 */
export const SERVED_CONCURRENCY = 128;

/**
 * In flight at once on the local engine, whatever `--concurrency` says: the store group-commits
 * what is queued, so this is about the records per fsync. 64 made a 100k-user sync ~1,560 fsyncs
 * (10-15 s); 256 makes ~390 (~5 s on a loaded 2-core machine); 1024 was no faster and used more
 * memory and CPU.
 */
export const LOCAL_CONCURRENCY = 256;

/** `runs prune` removes finished runs started longer ago than this many days (`--older-than`)... */
export const PRUNE_MAX_AGE_DAYS = 30;

/** ...and the finished runs beyond the newest this many. */
export const PRUNE_KEEP_FINISHED = 100;

/** The defaults docs may cite in a `<!-- default: name -->` span, by name. */
export const NAMED_DEFAULTS: Readonly<Record<string, number>> = {
  'remote-concurrency': REMOTE_CONCURRENCY,
  'local-concurrency': LOCAL_CONCURRENCY,
  'served-concurrency': SERVED_CONCURRENCY,
  'prune-max-age-days': PRUNE_MAX_AGE_DAYS,
  'prune-keep-finished': PRUNE_KEEP_FINISHED,
};
