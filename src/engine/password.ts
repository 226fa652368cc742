import { randomBytes, scrypt, timingSafeEqual, type ScryptOptions } from 'node:crypto';
import { availableParallelism } from 'node:os';

/** Passwords are kept only as salted scrypt hashes (docs/engine-rules.md, "Passwords"). */
const SCRYPT_PARAMS = { N: 16384, r: 8, p: 1 } as const;
const SALT_BYTES = 16;
const KEY_BYTES = 32;
const HASH_FORMAT = /^scrypt\$N=(\d+),r=(\d+),p=(\d+)\$([A-Za-z0-9_-]+)\$([A-Za-z0-9_-]+)$/;

/** How many hashes run at once (docs/remote.md, "The local server"); the rest wait here, in order. */
const SCRYPT_CONCURRENCY = Math.max(
  1,
  Math.min((Number(process.env.UV_THREADPOOL_SIZE) || 4) - 1, availableParallelism()),
);

let running = 0;
const waiting: (() => void)[] = [];

async function withHashSlot<T>(work: () => Promise<T>): Promise<T> {
  // A finishing hash hands its slot straight to the next waiter, so a newcomer cannot jump in between.
  if (running >= SCRYPT_CONCURRENCY) await new Promise<void>((resolve) => waiting.push(resolve));
  else running += 1;
  try {
    return await work();
  } finally {
    const next = waiting.shift();
    if (next) next();
    else running -= 1;
  }
}

function derive(password: string, salt: Buffer, keyLength: number, options: ScryptOptions): Promise<Buffer> {
  return withHashSlot(
    () =>
      new Promise((resolve, reject) => {
        scrypt(password.normalize('NFC'), salt, keyLength, options, (error, key) =>
          error ? reject(error) : resolve(key),
        );
      }),
  );
}

export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(SALT_BYTES);
  const { N, r, p } = SCRYPT_PARAMS;
  const key = await derive(password, salt, KEY_BYTES, { N, r, p, maxmem: 256 * N * r });
  return `scrypt$N=${N},r=${r},p=${p}$${salt.toString('base64url')}$${key.toString('base64url')}`;
}

/** True when `password` is the one `hash` was made from; false for a malformed hash. */
export async function verifyPassword(password: string, hash: string): Promise<boolean> {
  const match = HASH_FORMAT.exec(hash);
  if (!match) return false;
  const [N, r, p] = [Number(match[1]), Number(match[2]), Number(match[3])];
  const salt = Buffer.from(match[4]!, 'base64url');
  const expected = Buffer.from(match[5]!, 'base64url');
  if (expected.length === 0 || N > 1 << 20 || r > 32 || p > 16) return false;
  try {
    const key = await derive(password, salt, expected.length, { N, r, p, maxmem: 256 * N * r * p });
    return timingSafeEqual(key, expected);
  } catch {
    return false;
  }
}
