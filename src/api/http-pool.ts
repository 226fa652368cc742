/**
 * undici's connection pool without undici's index. The index loads every dispatcher, the mocks,
 * the caches and the web (fetch, cookies) layer, which in turn loads Node's own bundled undici:
 * about 130 ms of start-up (measured: `require('undici')` 0.17 s over an empty node, these three
 * modules 0.04 s) for a run that needs one Pool. The index's only addition to a Pool is
 * `Object.assign(Dispatcher.prototype, api)`; `request` below is that same function, called with
 * the pool as `this`. These are undici's internal paths, so package.json pins undici's version
 * exactly; the remote tests (test/remote/) exercise every one of them.
 */
import type { Dispatcher, Pool as PoolType, errors as ErrorsType } from 'undici';
import PoolClass from 'undici/lib/dispatcher/pool.js';
import requestOnDispatcher from 'undici/lib/api/api-request.js';
import errorClasses from 'undici/lib/core/errors.js';

export type Pool = PoolType;
export const Pool: typeof PoolType = PoolClass;
export const undiciErrors: typeof ErrorsType = errorClasses;

/** `pool.request(options)` of undici's index. */
export function request(pool: Dispatcher, options: Dispatcher.RequestOptions): Promise<Dispatcher.ResponseData> {
  return requestOnDispatcher.call(pool, options);
}
