import { option, parsed, brief } from '../../flags/option-table.js';
import { needing } from '../../flags/flag-pairs.js';
import { declareCommand, type CommandOptions } from '../command-declaration.js';
import { SYNC_DIR_OPTION } from './sync-options.js';
import { InvalidArgumentError } from 'commander';
import { wholeNumberIn } from '../../flags/flag-values.js';

/**
 * `--public-url`: where clients reach the server behind a proxy or port mapping (the OpenAPI `servers`): an
 * http(s) URL, maybe with a path prefix; no credentials, query or fragment.
 */
function publicUrl(value: string): string {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new InvalidArgumentError(
      '--public-url must be an absolute http:// or https:// URL, e.g. https://exam.example.test',
    );
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw new InvalidArgumentError('--public-url must be an http:// or https:// URL');
  if (url.username !== '' || url.password !== '' || /[?#]/.test(url.href)) {
    throw new InvalidArgumentError('--public-url takes no user name, password, query or fragment');
  }
  return `${url.origin}${url.pathname.replace(/\/+$/, '')}`;
}

const LOCAL_SERVE_OPTIONS = [
  option('--host <host>', 'address to bind', '127.0.0.1'),
  brief(
    'port; 0 is any free port, printed on stderr',
    parsed('--port <n>', 'port (0: any free port, printed on stderr)', wholeNumberIn('--port', 0, 65535), 0),
  ),
  brief(
    'the URL clients use behind a proxy',
    parsed(
      '--public-url <url>',
      "the URL clients use when it is behind a proxy or port mapping (the OpenAPI document's servers; default: the listening URL)",
      publicUrl,
    ),
    'the listening URL',
  ),
  // SPEC is checked by the command (src/server/faults.ts): a table loads nothing but commander.
  brief(
    'inject faults, e.g. 503:10%,reset:2%,latency:5-50ms',
    option('--faults <spec>', 'inject faults: comma list of 429:P%, 500:P%, 503:P%, reset:P%, lost:P%, latency:A-Bms'),
    'none',
  ),
  ...needing(['--faults'], undefined, [
    brief(
      undefined,
      parsed(
        '--faults-seed <n>',
        'seed of the fault draws (default: random, printed on stderr)',
        wholeNumberIn('--faults-seed', 0, 0xffffffff),
      ),
      'random, printed',
    ),
  ] as const),
  SYNC_DIR_OPTION,
] as const;

export type LocalServeOptions = CommandOptions<typeof LOCAL_SERVE>;

export const LOCAL_SERVE = declareCommand({
  path: ['local', 'serve'],
  description: 'serve the local engine as the HTTP API (Authorization: EAPI <token of the world settings>)',
  examples: [
    '# the demo world (token dev-token) on a fixed port; Ctrl-C stops it',
    'examctl local serve --port 8080',
    '# any free port, printed as "listening on http://127.0.0.1:PORT" on stderr',
    'examctl --store ./demo-store local serve --port 0',
    'EXAMCTL_TOKEN=dev-token examctl --base-url http://127.0.0.1:8080 doctor',
    '# behind a reverse proxy: its OpenAPI document (/api/v1/integrations/openapi.json) names the public URL',
    'examctl local serve --port 8080 --public-url https://exam-sandbox.example.test',
    "# test a client's retries: 10% 503, 2% lost answers, 5-50 ms latency, reproducible",
    'examctl local serve --port 8080 --faults 503:10%,lost:2%,latency:5-50ms --faults-seed 42',
  ],
  options: LOCAL_SERVE_OPTIONS,
  takes: ['--store'],
});
