import { randomBytes, scrypt, timingSafeEqual, type ScryptOptions } from 'node:crypto';

/**
 * Passwords are kept only as salted scrypt hashes: `scrypt$N=16384,r=8,p=1$<salt>$<key>`
 * (salt 16 random bytes, key 32 bytes, both base64url). The parameters travel inside the hash,
 * so they can be raised later without invalidating stored hashes. N=2^14, r=8 (16 MiB, tens of
 * milliseconds per hash) is a deliberate trade-off for bulk provisioning of many candidates.
 */
export const SCRYPT_PARAMS = { N: 16384, r: 8, p: 1 } as const;
const SALT_BYTES = 16;
const KEY_BYTES = 32;
const HASH_FORMAT = /^scrypt\$N=(\d+),r=(\d+),p=(\d+)\$([A-Za-z0-9_-]+)\$([A-Za-z0-9_-]+)$/;

function derive(password: string, salt: Buffer, keyLength: number, options: ScryptOptions): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    scrypt(password.normalize('NFC'), salt, keyLength, options, (error, key) => (error ? reject(error) : resolve(key)));
  });
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
