/**
 * Secrets of any length are redacted (api/redaction.ts): a state service's password of 1 to 3
 * characters quoted back in its error never reaches stdout, stderr or a journal, and is taken out
 * only where it stands as a whole token, so that the password "a" leaves every other "a" alone.
 */
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { expectCoded } from '../support/coded-message.js';
import { runCli } from '../../src/cli/run-cli.js';
import { createRedactor, withRecordSecrets } from '../../src/api/redaction.js';
import { testDeps, withTempDir } from '../cli/helpers.js';
import { stateServerPerTest } from '../support/state-server.js';

const server = stateServerPerTest();
async function sync(dir: string, password: string) {
  writeFileSync(
    join(dir, 'users.csv'),
    'ExternalId,FirstName,LastName,Email,UserName,Role\nu-1,Ann,Lee,ann@example.test,ann,Candidate\n',
  );
  const env = {
    EXAMCTL_RUNS_DIR: join(dir, 'runs'),
    EXAMCTL_LOCK_TIMEOUT_MS: '0',
    EXAMCTL_SYNC_DIR: server.address('n'),
    EXAMCTL_SYNC_USERNAME: 'ci',
    EXAMCTL_SYNC_PASSWORD: password,
  };
  const io = testDeps(dir, {}, env);
  const code = await runCli(
    ['user', 'sync', '--file', 'users.csv', '--target', 'local', '--store', 'store', '--changed-only', '--json'],
    io.deps,
  );
  const runs = join(dir, 'runs');
  const journals = existsSync(runs)
    ? readdirSync(runs, { recursive: true })
        .map(String)
        .filter((name) => name.endsWith('.ndjson'))
        .map((name) => readFileSync(join(runs, name), 'utf8'))
    : [];
  return { code, outputs: [io.stdout.text, io.stderr.text, ...journals], stderr: io.stderr.text };
}

describe('a state service quoting back a password of 1 to 3 characters', () => {
  it.each([
    ['x', 'login of ci with password "x" refused; other words stay'],
    ['Q7', 'login of ci with password "Q7" refused; other words stay'],
    ['%!z', 'login of ci with password "%!z" (%25!z) refused; other words stay'],
  ])('%j: never shown, the rest of the message kept', (password, message) =>
    withTempDir(async (dir) => {
      server.fail('LOCK', 500, 3, message);
      const { code, outputs, stderr } = await sync(dir, password);
      expect(code, stderr).toBe(3);
      expectCoded(stderr, 'E3000', 'LOCK', '500', 'ci', '"[redacted]"');
      expect(stderr).toContain('refused; other words stay');
      for (const text of outputs) expect(text).not.toContain(`"${password}"`);
      if (password === '%!z') expect(stderr).not.toContain('%25!z');
    }),
  );
});

describe('a short secret as a whole token', () => {
  it('the password "a" goes where it stands alone, as a JSON string or between punctuation, and nowhere else', () => {
    const gate = createRedactor(['a']);
    expect(gate.text('a bad password: a')).toBe('[redacted] bad password: [redacted]');
    expect(gate.text('{"Password":"a","Note":"banana"}')).toBe('{"Password":"[redacted]","Note":"banana"}');
    expect(gate.text('Alpha, gamma, café à la carte')).toBe('Alpha, gamma, café à la carte');
    expect(gate.deep({ Errors: [{ Message: 'wrong', Value: 'A' }] })).toEqual({
      Errors: [{ Message: 'wrong', Value: '[redacted]' }],
    });
  });

  it("a record's own PIN of 2 digits is its secret too", () => {
    const gate = withRecordSecrets(createRedactor(['tok-ABCDEFGHIJKLMNOP']), { Pin: '42' });
    expect(gate.text('PIN 42 refused for room 420 at 14:42')).toBe(
      'PIN [redacted] refused for room 420 at 14:[redacted]',
    );
  });
});
