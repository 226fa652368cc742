// The three undici modules src/api/http-pool.ts imports by path (undici declares only its index).
declare module 'undici/lib/dispatcher/pool.js' {
  import type { Pool } from 'undici';
  const PoolClass: typeof Pool;
  export default PoolClass;
}

declare module 'undici/lib/api/api-request.js' {
  import type { Dispatcher } from 'undici';
  function request(this: Dispatcher, options: Dispatcher.RequestOptions): Promise<Dispatcher.ResponseData>;
  export default request;
}

declare module 'undici/lib/core/errors.js' {
  import type { errors } from 'undici';
  const errorClasses: typeof errors;
  export default errorClasses;
}
