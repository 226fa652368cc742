import { describe, it, expect } from 'vitest';
import type { WorldSchedule } from '../../src/domain/world.js';
import { codes, demoEngine } from './helpers.js';

describe('removeInvigilators', () => {
  it('removes listed invigilators and reports others as 319 with Success true', async () => {
    const { engine, store } = demoEngine();
    const result = await engine.removeInvigilators('S-FUTURE', ['inv-1', 'inv-9', 'inv-3']);
    expect(result.status).toBe(200);
    expect(result.action).toBe('updated');
    expect(result.envelope.Success).toBe(true);
    expect(result.envelope.Content).toEqual({
      SuccessfullyRemoved: ['inv-1', 'inv-3'],
      Errors: [{ UserExtId: 'inv-9', Code: 319, Error: expect.stringContaining('inv-9') }],
    });
    expect((store.state.get('schedules')!.get('S-FUTURE') as WorldSchedule).Invigilators).toEqual(['inv-2']);
  });

  it('compares ids ignoring case, as the service does: INV-2 removes inv-2, named as the request named it (found by a trial)', async () => {
    const { engine, store } = demoEngine();
    const result = await engine.removeInvigilators('S-FUTURE', ['INV-2', 'Inv-2']);
    expect(result.envelope.Content).toEqual({ SuccessfullyRemoved: ['INV-2'], Errors: [] });
    expect((store.state.get('schedules')!.get('S-FUTURE') as WorldSchedule).Invigilators).toEqual(['inv-1', 'inv-3']);
  });

  it('a request removing nobody is unchanged', async () => {
    const { engine, store } = demoEngine();
    const before = store.commits.length;
    const result = await engine.removeInvigilators('S-FUTURE', ['inv-9']);
    expect(result.action).toBe('unchanged');
    expect(store.commits.length).toBe(before);
  });

  const refusals: { name: string; schedule: string; ids: unknown; code: number }[] = [
    { name: '301 schedule not found', schedule: 'S-NOPE', ids: ['inv-1'], code: 301 },
    { name: '302 archived', schedule: 'S-ARCHIVED', ids: ['inv-2'], code: 302 },
    { name: '305 finished (end passed)', schedule: 'S-PAST', ids: ['inv-1'], code: 305 },
    { name: '100 empty body', schedule: 'S-FUTURE', ids: [], code: 100 },
    { name: '200 no valid ids', schedule: 'S-FUTURE', ids: ['', '  '], code: 200 },
    { name: '300 empty schedule id', schedule: '', ids: ['inv-1'], code: 300 },
  ];
  for (const c of refusals) {
    it(`whole-request error ${c.name}: HTTP 200, Success false`, async () => {
      const { engine } = demoEngine();
      const result = await engine.removeInvigilators(c.schedule, c.ids as string[]);
      expect(result.status).toBe(200);
      expect(result.envelope.Success).toBe(false);
      expect(result.envelope.Content).toBeNull();
      expect(codes(result.envelope.Errors)).toContain(c.code);
    });
  }

  it('an archived schedule whose end has passed reports both 302 and 305', async () => {
    const { engine } = demoEngine();
    const result = await engine.removeInvigilators('S-ARCHIVED', ['inv-2']);
    expect(codes(result.envelope.Errors)).toEqual([302, 305]);
  });

  it('a running (activated, not finished) schedule still allows removal', async () => {
    const { engine } = demoEngine();
    const result = await engine.removeInvigilators('S-LIVE', ['inv-3']);
    expect(result.envelope.Content!.SuccessfullyRemoved).toEqual(['inv-3']);
  });
});

describe('getReviewSession', () => {
  it('returns the stored review session exactly', async () => {
    const { engine, world } = demoEngine();
    const result = await engine.getReviewSession('RS-MATH1-OCT');
    expect(result.status).toBe(200);
    expect(result.envelope.Success).toBe(true);
    expect(result.envelope.Content).toEqual(world.ReviewSessions.find((r) => r.ExternalId === 'RS-MATH1-OCT'));
  });

  it('answers only once what it read is durable, and a failed write refuses the read', async () => {
    const { engine, store } = demoEngine();
    let release!: (error?: Error) => void;
    store.whenDurable = () =>
      new Promise<void>((resolve, reject) => (release = (error) => (error ? reject(error) : resolve())));
    let answered = false;
    const read = engine.getReviewSession('RS-MATH1-OCT').then((result) => {
      answered = true;
      return result;
    });
    await new Promise((resolve) => setImmediate(resolve));
    expect(answered).toBe(false);
    release();
    expect((await read).status).toBe(200);

    const failing = engine.getReviewSession('RS-MATH1-OCT');
    await new Promise((resolve) => setImmediate(resolve));
    release(new Error('cannot write the journal'));
    await expect(failing).rejects.toThrow('cannot write the journal');
  });

  it('unknown id: HTTP 400 code 1101', async () => {
    const { engine } = demoEngine();
    const result = await engine.getReviewSession('RS-NOPE');
    expect(result.status).toBe(400);
    expect(result.envelope).toMatchObject({ Success: false, Content: null });
    expect(codes(result.envelope.Errors)).toEqual([1101]);
  });
});
