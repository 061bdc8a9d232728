import { optionalTimestampQuery, parseIsoTimestamp } from '../src';

describe('parseIsoTimestamp', () => {
  it.each([
    ['2026-11-22T09:30:00Z', '2026-11-22T09:30:00.000Z'],
    ['2026-11-22T09:30:00.123456Z', '2026-11-22T09:30:00.123Z'],
    ['2026-11-22T09:30+02:00', '2026-11-22T07:30:00.000Z'],
    ['2026-11-22', '2026-11-22T00:00:00.000Z'],
    ['2024-02-29T00:00:00Z', '2024-02-29T00:00:00.000Z'],
    ['2000-02-29', '2000-02-29T00:00:00.000Z'],
  ])('reads %s as %s', (text, iso) => {
    expect(parseIsoTimestamp(text)?.toISOString()).toBe(iso);
  });

  it.each([
    ['February 30', '2026-02-30T00:00:00Z'],
    ['November 31', '2026-11-31'],
    ['February 29 of a common year', '2026-02-29T00:00:00Z'],
    ['February 29 of 1900', '1900-02-29'],
    ['month 13', '2026-13-45'],
    ['month 00', '2026-00-10'],
    ['day 00', '2026-01-00'],
    ['hour 25', '2026-01-01T25:00:00Z'],
    ['minute 60', '2026-01-01T10:60:00Z'],
    ['second 60', '2026-01-01T10:00:60Z'],
    ['a zone of 24 hours', '2026-01-01T10:00:00+24:00'],
    ['no zone', '2026-01-01T10:00:00'],
    ['year 0 (PostgreSQL has none)', '0000-01-01T00:00:00Z'],
    ['before year 1 once in UTC', '0001-01-01T00:30:00+01:00'],
    ['a five-digit year', '99999-01-01T00:00:00Z'],
    ['text', 'x'],
    ['empty', ''],
  ])('refuses %s (%s)', (_label, text) => {
    expect(parseIsoTimestamp(text)).toBeUndefined();
  });
});

describe('optionalTimestampQuery', () => {
  it('is undefined when absent, the instant when valid', () => {
    expect(optionalTimestampQuery({}, 'created_after')).toBeUndefined();
    expect(optionalTimestampQuery({ created_after: '2026-03-01' }, 'created_after')).toEqual(
      new Date('2026-03-01T00:00:00Z'),
    );
  });

  it.each(['2026-02-30T00:00:00Z', '2026-11-31', 'yesterday'])(
    'refuses %s with 422 invalid_value naming the parameter',
    (value) => {
      expect(() => optionalTimestampQuery({ created_after: value }, 'created_after')).toThrow(
        expect.objectContaining({ status: 422, code: 'invalid_value', param: 'created_after' }),
      );
    },
  );

  it('says in its 422 both forms it takes: a date-time with a zone, and a date alone', () => {
    // A caller sent `created_after=2026-11-22` successfully yesterday; the message of a typo today
    // must not tell them that form is wrong.
    expect(() => optionalTimestampQuery({ created_after: '2026-11-222' }, 'created_after')).toThrow(
      /date-time with a zone \(e\.g\. 2026-11-22T09:30:00Z\) or a date read as midnight UTC \(e\.g\. 2026-11-22\)/,
    );
  });
});
