import { getSystemErrorMap } from 'node:util';
import { ExamctlError, messageOf, StoreDamagedError, TargetError } from './errors.js';

/**
 * Raw system error codes put into words for messages: `cannot write report out/r.csv: ENOENT`
 * tells an admin little; `... the directory does not exist (ENOENT)` tells what to fix. The code
 * stays in parentheses so it can still be searched for. Pure: no fs, no network.
 */

/** What the path named in the message is, when the caller knows: ENOENT then says which is missing. */
type PathSubject = 'file' | 'directory';

const FIXED_WORDS: Readonly<Record<string, string>> = {
  EACCES: 'permission denied (check the owner and mode of the file or directory)',
  EPERM: 'operation not permitted (the file may be read-only, in use, or owned by another user)',
  EISDIR: 'it is a directory, not a file',
  ENOTDIR: 'a part of the path is a file, not a directory',
  ENOSPC: 'no space left on the device',
  EDQUOT: 'the disk quota is exhausted',
  EFBIG: "the file would grow past the largest size allowed (a `ulimit -f` limit or the file system's)",
  ENAMETOOLONG: 'the path or a name in it is too long',
  ELOOP: 'too many symbolic links in the path (a link loop?)',
  EXDEV: 'the two paths are on different file systems',
  EIO: 'an input/output error (a failing disk, or a network drive that went away)',
  EROFS: 'the file system is read-only',
  EEXIST: 'it already exists',
  ENOTEMPTY: 'the directory is not empty',
  EMFILE: 'too many open files in this process (raise the limit, e.g. `ulimit -n 4096`)',
  ENFILE: 'too many open files on this system',
  EBUSY: 'the file or device is busy',
  EPIPE: 'the reader of the output went away (e.g. `| head` stopped reading)',
  ECONNREFUSED:
    'the connection was refused: nothing listens at that address and port (is the service running, is the port right?)',
  ENOTFOUND: "the host name could not be resolved (check the base URL's spelling, the DNS or the network)",
  EAI_AGAIN: 'the host name could not be resolved just now (a temporary DNS failure)',
  ETIMEDOUT: 'the connection timed out: the host did not answer (a firewall, a proxy or a wrong address?)',
  ECONNRESET: 'the connection was closed by the other side (the service, a proxy or a load balancer dropped it)',
  EHOSTUNREACH: 'there is no route to the host (network down, VPN off, or a firewall)',
  ENETUNREACH: 'the network is unreachable (no connection, or VPN off)',
  CERT_HAS_EXPIRED: "the server's TLS certificate has expired",
  CERT_NOT_YET_VALID: "the server's TLS certificate is not valid yet (or this machine's clock is wrong)",
  DEPTH_ZERO_SELF_SIGNED_CERT:
    "the server's TLS certificate is self-signed, so it is not trusted (a private CA: NODE_EXTRA_CA_CERTS=<ca.pem>)",
  SELF_SIGNED_CERT_IN_CHAIN:
    "the server's certificate chain ends in an untrusted self-signed CA (a private CA: NODE_EXTRA_CA_CERTS=<ca.pem>)",
  UNABLE_TO_VERIFY_LEAF_SIGNATURE:
    "the server's certificate cannot be verified (a missing intermediate certificate or a private CA: NODE_EXTRA_CA_CERTS=<ca.pem>)",
  UNABLE_TO_GET_ISSUER_CERT_LOCALLY:
    "the server's certificate was issued by a CA this machine does not know (NODE_EXTRA_CA_CERTS=<ca.pem>)",
  ERR_TLS_CERT_ALTNAME_INVALID: "the server's TLS certificate is for another host name than the base URL's",
};

/** undici's codes for what the system calls ETIMEDOUT and ECONNRESET: the same words. */
const SAME_WORDS: Readonly<Record<string, string>> = {
  UND_ERR_CONNECT_TIMEOUT: 'ETIMEDOUT',
  UND_ERR_SOCKET: 'ECONNRESET',
};

/** The words for a code; undefined for codes examctl has no better words for (the code is then shown as is). */
export function systemErrorWords(code: string, subject?: PathSubject): string | undefined {
  if (code === 'ENOENT') return subject === undefined ? 'no such file or directory' : `the ${subject} does not exist`;
  const fixed = FIXED_WORDS[SAME_WORDS[code] ?? code];
  if (fixed !== undefined) return fixed;
  if (code.startsWith('CERT_') || code.startsWith('ERR_TLS_') || code.startsWith('ERR_SSL_'))
    return "the server's TLS certificate was not accepted";
  return undefined;
}

/** The code of a system error, looked for through `cause` (undici wraps it: `fetch failed` -> ECONNREFUSED). */
export function systemErrorCode(error: unknown): string | undefined {
  let current: unknown = error;
  for (let depth = 0; depth < 5 && current !== null && typeof current === 'object'; depth++) {
    const code = (current as { code?: unknown }).code;
    if (typeof code === 'string' && code !== '') return code;
    current = (current as { cause?: unknown }).cause;
  }
  return undefined;
}

/** libuv's words for an errno name (`EIO` -> `i/o error`) examctl has none for; built on first need. */
let libuvWords: Map<string, string> | undefined;
function systemTableWords(code: string): string | undefined {
  if (libuvWords === undefined) {
    libuvWords = new Map();
    for (const [name, description] of getSystemErrorMap().values()) libuvWords.set(name, description);
  }
  return libuvWords.get(code);
}

/**
 * The reason to put after `cannot <do> <path>: `, always in words: `the directory does not exist
 * (ENOENT)`, `it is a FIFO, not a regular file`, the system's own words for a code examctl has
 * none for (`i/o error (EIO)`), else the error's message. A bare code never stands alone.
 */
export function describeSystemError(error: unknown, subject?: PathSubject): string {
  // regular-file.ts's refusals, known by their fields: their classes would load node:fs/promises at every start.
  const refusal = error as { code?: unknown; kind?: unknown; maxBytes?: unknown } | undefined;
  if (refusal?.code === 'ENOTREG' && typeof refusal.kind === 'string')
    return `it is ${refusal.kind}, not a regular file`;
  if (refusal?.code === 'EFBIG' && typeof refusal.maxBytes === 'number')
    return `it is larger than ${refusal.maxBytes / 2 ** 20} MiB, the most examctl reads`;
  const code = systemErrorCode(error);
  const message = messageOf(error);
  if (code === undefined) return message;
  const words = systemErrorWords(code, subject) ?? systemTableWords(code);
  if (words !== undefined) return `${words} (${code})`;
  return message !== '' && message !== code ? message : `the system refused with ${code}`;
}

/** A store's file that cannot be read (exit 3): its path and the system's words. */
export function storeFileUnreadable(path: string, error: unknown): StoreDamagedError {
  return new StoreDamagedError(`${path}: cannot read: ${describeSystemError(error, 'file')}`, { cause: error });
}

/** A system error no command expected (a full disk) as exit 3 saying `what` failed; any other error as it is. */
export function systemFailure(error: unknown, what: string, subject?: PathSubject): unknown {
  if (error instanceof ExamctlError || systemErrorCode(error) === undefined) return error;
  return new TargetError(`${what}: ${describeSystemError(error, subject)}`, { cause: error });
}
