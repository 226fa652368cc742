import { describe, expect, it } from 'vitest';
import { jsonRows, sheetRows, textRows } from '../../src/report/review-session-csv.js';
import { resultsTable } from '../support/results-table.js';
import { readOutputTimes, type OutputTimes } from '../../src/report/output-times.js';
import type { ReviewSession } from '../../src/domain/types.js';

/*
 * DateOfBirth is a date (docs/cli.md, "review-session show"): the same candidate is born on the
 * same day for every reader, whatever zone the reader asks for. One the service sends with a time
 * of day (a service's local midnight written in UTC) is written as sent, never placed in a zone.
 */
const session = (dateOfBirth: string) =>
  ({
    ExternalId: 'RS-1',
    Results: [{ CandidateExtId: 'c-1', DateOfBirth: dateOfBirth, PublishedDate: '2026-10-12T08:00:00.000Z' }],
  }) as unknown as ReviewSession;
const table = (dateOfBirth: string) => resultsTable([{ externalId: 'RS-1', session: session(dateOfBirth) }]);
const column = (name: string) => table('2004-03-17').header.indexOf(name);
function outputTimesOf({ timeZone, dateFormat }: { timeZone: string; dateFormat: string }): OutputTimes {
  const reading = readOutputTimes(
    { timezone: { text: timeZone, origin: '--timezone' }, dateFormat: { text: dateFormat, origin: '--date-format' } },
    'UTC',
  );
  if (!reading.ok) throw new Error(reading.message);
  return reading.times;
}

describe('DateOfBirth in review-session results', () => {
  const zones = ['Europe/Berlin', 'America/New_York', 'Asia/Tokyo'];

  it('a midnight instant is its date in every zone and format', () => {
    for (const zone of zones) {
      const times = outputTimesOf({ timeZone: zone, dateFormat: 'DD.MM.YYYY HH:mm' });
      expect(textRows(table('2004-03-17T00:00:00.000Z'), { times })[0]![column('DateOfBirth')]).toBe('17.03.2004');
    }
  });

  it('one with a time of day is written as sent in every zone: text, JSON and the workbook alike', () => {
    const sent = '1999-12-31T23:00:00.000Z';
    for (const zone of zones) {
      const times = outputTimesOf({ timeZone: zone, dateFormat: 'DD.MM.YYYY HH:mm' });
      expect(textRows(table(sent), { times })[0]![column('DateOfBirth')], zone).toBe(sent);
      expect(jsonRows(table(sent), { times })[0]!.DateOfBirth, zone).toBe(sent);
      expect(sheetRows(table(sent), zone)[0]![column('DateOfBirth')], zone).toBe(sent);
      // An instant field is still placed in the zone.
      expect(textRows(table(sent), { times })[0]![column('PublishedDate')], zone).not.toBe('2026-10-12T08:00:00.000Z');
    }
  });
});

describe('the TimeZone column of wall times (docs/cli.md, "review-session show")', () => {
  it('comes after the results and the Pin, before the Error of several sessions; an unread session has none', () => {
    const several = resultsTable(
      [
        { externalId: 'RS-1', session: session('2004-03-17') },
        { externalId: 'RS-2', error: '1101 not found' },
      ],
      { sessionColumn: true, pinColumn: true, timeZoneColumn: 'Europe/Berlin' },
    );
    expect(several.header.slice(-3)).toEqual(['Pin', 'TimeZone', 'Error']);
    expect(several.rows.map((row) => row.slice(-2))).toEqual([
      ['Europe/Berlin', null],
      [null, '1101 not found'],
    ]);
  });

  it('a results field of that name from the service is kept as sent, never doubled or overwritten', () => {
    const sent = {
      ExternalId: 'RS-1',
      Results: [{ CandidateExtId: 'c-1', TimeZone: 'server zone' }],
    } as unknown as ReviewSession;
    const one = resultsTable([{ externalId: 'RS-1', session: sent }], { timeZoneColumn: 'Europe/Berlin' });
    expect(one.header.filter((name) => name === 'TimeZone')).toHaveLength(1);
    expect(one.rows[0]![one.header.indexOf('TimeZone')]).toBe('server zone');
  });
});

describe('an instant the --date-format cannot hold whole', () => {
  it('is written as RFC 3339 (which every --date-format reads), not cut to the minute; one it holds is written in it', async () => {
    const { instantText } = await import('../../src/report/output-times.js');
    const times = outputTimesOf({ timeZone: 'Europe/Berlin', dateFormat: 'DD.MM.YYYY HH:mm' });
    expect(instantText(Date.parse('2026-10-12T09:00:45Z'), times, 'iso')).toBe('2026-10-12T11:00:45+02:00');
    expect(instantText(Date.parse('2026-10-12T09:00:00.250Z'), times, 'iso')).toBe('2026-10-12T11:00:00.250+02:00');
    expect(instantText(Date.parse('2026-10-12T09:00:00Z'), times, 'iso')).toBe('12.10.2026 11:00');
    const withSeconds = outputTimesOf({ timeZone: 'Europe/Berlin', dateFormat: 'DD.MM.YYYY HH:mm:ss' });
    expect(instantText(Date.parse('2026-10-12T09:00:45Z'), withSeconds, 'iso')).toBe('12.10.2026 11:00:45');
  });
});

describe('--timezone and --date-format are checked by one rule (readTimeSettings) for every command', () => {
  it('review-session show refuses as a run does: the format first, then the zone, each naming where it came from', () => {
    const both = {
      timezone: { text: 'Europe/Atlantis', origin: '--timezone' },
      dateFormat: { text: 'QQ/MM', origin: 'profile sis: dateFormat' },
    };
    const reading = readOutputTimes(both, 'UTC');
    expect(reading.ok ? '' : reading.message).toMatch(/^profile sis: dateFormat QQ\/MM: /);
    const zoneOnly = readOutputTimes({ timezone: both.timezone }, 'UTC');
    expect(zoneOnly.ok ? '' : zoneOnly.message).toMatch(/^--timezone: unknown time zone "Europe\/Atlantis"/);
    expect(readOutputTimes({}, 'Asia/Tokyo')).toEqual({ ok: true, times: { zone: 'Asia/Tokyo' } });
  });
});
