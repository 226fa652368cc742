import { afterEach, describe, expect, it } from 'vitest';
import { createRemoteClient } from '../../src/api/remote-client.js';
import { json, startHostileServer, type HostileServer } from '../support/hostile-server.js';

/** The header `x-examctl-store-head` as the remote client reads it (docs/remote.md, "The local server"). */
const TOKEN = 'served-head-token-0123456789';
const ok = { Success: true, Content: { User: { ExternalId: 'u-1' } }, Errors: null };
// The client sends what it is given: the server here reads nothing of it.
const user = { ExternalId: 'u-1' } as never;

let server: HostileServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function headsSaid(value: string): Promise<string[]> {
  server = await startHostileServer((_request, res) => json(res, 200, ok, { 'x-examctl-store-head': value }));
  const client = createRemoteClient({ baseUrl: server.url, token: TOKEN });
  const heads: string[] = [];
  try {
    const answer = await client.upsertUser(user, { onHead: (head) => void heads.push(head) });
    expect(answer.status).toBe(200);
  } finally {
    await client.close();
  }
  return heads;
}

describe('a served head', () => {
  it('a head (22 base64url characters) is told to the call', async () => {
    expect(await headsSaid('AAAAAAAAAAAAAAAAAAAAAA')).toEqual(['AAAAAAAAAAAAAAAAAAAAAA']);
  });

  it.each([
    ['too long', 'A'.repeat(8000)],
    ['too short', 'AAAA'],
    ['not base64url', 'AAAAAAAAAAAAAAAAAAAA/+'],
    ['two heads', 'AAAAAAAAAAAAAAAAAAAAAA, BBBBBBBBBBBBBBBBBBBBBB'],
  ])('%s: not a head, never told', async (_, value) => {
    expect(await headsSaid(value)).toEqual([]);
  });
});
