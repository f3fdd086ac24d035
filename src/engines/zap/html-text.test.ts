import { describe, expect, it } from 'vitest';
import { decodeEntities, htmlToText, referenceUrls } from './html-text.js';

describe('htmlToText', () => {
  it.each([
    ['paragraphs become lines', '<p>One.</p><p>Two.</p>', 'One.\nTwo.'],
    ['br and lists', 'a<br>b<br/>c<ul><li>d</li><li>e</li></ul>', 'a\nb\nc\nd\ne'],
    [
      'inline formatting removed',
      '<p>Use <b>HTTPS</b> and <a href="x">this</a>.</p>',
      'Use HTTPS and this.',
    ],
    [
      'entities decoded after tags',
      '<p>&lt;script&gt; &amp; &quot;q&quot; &#39;s&#x27; &nbsp;x</p>',
      '<script> & "q" \'s\' x',
    ],
    // ZAP writes literal tag names in its text without escaping them: they stay.
    [
      'unknown tags kept as text',
      '<p>No <base> tag was specified in the HTML <head> tag</p>',
      'No <base> tag was specified in the HTML <head> tag',
    ],
    ['comments removed', 'a<!-- hidden -->b', 'ab'],
    ['blank lines and runs of spaces', '\n\n  a   b \t c  \n\n\n d\n', 'a b c\nd'],
    ['plain text unchanged', 'Plain text, 2 < 3.', 'Plain text, 2 < 3.'],
    ['empty', '', ''],
  ])('%s', (_name, html, text) => {
    expect(htmlToText(html)).toBe(text);
  });
});

describe('decodeEntities', () => {
  it('decodes references and known names; invalid code points become U+FFFD', () => {
    expect(decodeEntities('&#x1F600;&#65;&mdash;&bogus;&#xD800;&#0;')).toBe(
      '😀A—&bogus;\uFFFD\uFFFD',
    );
  });
});

describe('referenceUrls', () => {
  it('splits paragraphs and lines into URLs, de-duplicated, punctuation trimmed', () => {
    expect(
      referenceUrls(
        '<p>https://owasp.org/a</p><p>https://owasp.org/a</p>\n  https://cwe.mitre.org/data/definitions/565.html.\nsee (https://en.wikipedia.org/wiki/HTTP_(disambiguation)) and http://x.example/q?a=1,',
      ),
    ).toEqual([
      'https://owasp.org/a',
      'https://cwe.mitre.org/data/definitions/565.html',
      'https://en.wikipedia.org/wiki/HTTP_(disambiguation)',
      'http://x.example/q?a=1',
    ]);
  });

  it('ignores text without URLs', () => {
    expect(referenceUrls('<p>TBA</p>')).toEqual([]);
  });
});
