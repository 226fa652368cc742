import { writeFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startExamctl, type Running } from '../durability/helpers.js';
import { examctlStep as examctl } from '../support/in-process.js';
import { okEnvelope, startFaultServer, type FaultServer } from '../support/fault-server.js';

/**
 * A collection whose request a killed run left unanswered, refused when the resume sends it again
 * (docs/sync.md, "A request cut short"): the same request refused now was not applied then either,
 * so the memory forgets it as if never sent; `synced show` does not count it. The loopback
 * service kills examctl as c2's first request arrives, then refuses it (806: no such owner).
 */

let dir: string;
let env: Record<string, string>;
let server: FaultServer;
let running: Running | undefined;
let seen = 0;

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'examctl-refused-collection-'));
  env = { EXAMCTL_RUNS_DIR: join(dir, 'runs'), EXAMCTL_SYNC_DIR: join(dir, 'synced'), EXAMCTL_TOKEN: 'dev-token' };
  seen = 0;
  server = await startFaultServer();
  server.fallback = (request) => {
    const collection = JSON.parse(request.body) as { ExternalId: string };
    if (collection.ExternalId !== 'c2') return okEnvelope({ ExternalId: collection.ExternalId });
    seen += 1;
    if (seen === 1) {
      running?.child.kill('SIGKILL');
      return { hold: new Promise<void>(() => undefined) };
    }
    return {
      status: 400,
      body: { Content: null, Success: false, Errors: [{ Code: 806, Message: 'Owner not found.' }] },
    };
  };
});
afterEach(async () => {
  await server.close();
  await rm(dir, { recursive: true, force: true });
});

const TARGET = ['--target', 'remote', '--base-url', '', '--allow-insecure-http'];

describe('a collection a killed run sent, refused by the resume', () => {
  it('is forgotten: synced show counts the one collection examctl made, none unsettled', async () => {
    writeFileSync(join(dir, 'c.csv'), 'ExternalId,Title,Owner\nc1,Physics,jdoe\nc2,Biology,nobody\n');
    const target = TARGET.map((arg) => (arg === '' ? server.url : arg));
    running = startExamctl(['collection', 'add', '--file', 'c.csv', ...target, '--yes', '--json'], dir, env);
    const killed = await running.done;
    expect(killed.signal, killed.stderr + killed.stdout).toBe('SIGKILL');
    running = undefined;
    const resumed = await examctl(
      ['runs', 'resume', '--json', '--base-url', server.url, '--allow-insecure-http'],
      dir,
      env,
    );
    expect(resumed.code, resumed.stderr).toBe(1);
    const items = (
      JSON.parse(resumed.stdout) as { items: { id: string; status: string; errors: { code: number }[] }[] }
    ).items;
    expect(items.find((item) => item.id === 'c2')).toMatchObject({ status: 'failed', errors: [{ code: 806 }] });
    const shown = await examctl(['synced', 'show', '--json'], dir, env);
    const memory = (JSON.parse(shown.stdout) as { memories: { kind: string; remembered: number; unsettled: number }[] })
      .memories;
    expect(memory.find((entry) => entry.kind === 'collections')).toMatchObject({ remembered: 1, unsettled: 0 });
  });
});
