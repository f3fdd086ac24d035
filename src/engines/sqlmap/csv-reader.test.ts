import { describe, expect, it } from 'vitest';
import { csvFields, csvRow } from './csv-reader.js';

describe('csvFields', () => {
  it('splits on commas outside quotes and unescapes doubled quotes', () => {
    expect(csvFields('"http://x/?a=1,2&b=""c""",GET,a,B,')).toEqual([
      'http://x/?a=1,2&b="c"',
      'GET',
      'a',
      'B',
      '',
    ]);
  });

  it('keeps a quote inside an unquoted field as text', () => {
    expect(csvFields('a"b,c')).toEqual(['a"b', 'c']);
  });

  it('is null when a quoted field does not end on the line', () => {
    expect(csvFields('"http://x/?a=1,GET,a,B,')).toBeNull();
  });
});

describe('csvRow', () => {
  it('reads a row, trimming fields and upper-casing the technique letters', () => {
    expect(csvRow(' http://x/?id=1 , GET , id , bt , a note ')).toEqual({
      kind: 'point',
      url: 'http://x/?id=1',
      place: 'GET',
      parameter: 'id',
      letters: 'BT',
      notes: 'a note',
    });
  });

  it('joins the middle fields of a parameter name holding a comma', () => {
    expect(csvRow('http://x/,POST,a,b,E,')).toMatchObject({ kind: 'point', parameter: 'a,b' });
  });

  it('tells blank, malformed and false-positive rows apart', () => {
    expect(csvRow('  ')).toEqual({ kind: 'blank' });
    expect(csvRow('http://x/,GET,id')).toEqual({ kind: 'malformed' });
    expect(csvRow(',GET,id,B,')).toEqual({ kind: 'malformed' });
    expect(csvRow('http://x/,GET, ,B,')).toEqual({ kind: 'malformed' });
    expect(csvRow('http://x/,GET,id,B,False positive or unexploitable')).toEqual({
      kind: 'false-positive',
    });
  });
});
