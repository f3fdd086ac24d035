import { XMLParser } from 'fast-xml-parser';
import { describe, expect, it } from 'vitest';
import {
  attr,
  child,
  codePoint,
  decodeXml,
  endOfLast,
  isNode,
  list,
  nodes,
  rawText,
  textOf,
  XML_TREE_OPTIONS,
  type XmlNode,
} from './xml-tree.js';

function parse(xml: string, cdata = false): XmlNode {
  const parser = new XMLParser({
    ...XML_TREE_OPTIONS,
    ...(cdata ? { cdataPropName: '#cdata' } : {}),
  });
  const tree: unknown = parser.parse(xml);
  return isNode(tree) ? tree : {};
}

describe('decodeXml', () => {
  it.each([
    ['the five XML entities', '&lt;a&gt; &amp; &quot;q&quot; &apos;s&apos;', '<a> & "q" \'s\''],
    ['decimal and hexadecimal references', '&#65;&#x42;&#x1F600;&#x1f600;', 'AB😀😀'],
    ['HTML names stay as written', '&nbsp;&mdash;&bogus;', '&nbsp;&mdash;&bogus;'],
    ['no double decoding', '&amp;lt;', '&lt;'],
    ['an unterminated reference stays', '&amp &#65 &', '&amp &#65 &'],
    ['uppercase X is not a hexadecimal reference', '&#X41;', '&#X41;'],
    ['text without &', 'plain <text>', 'plain <text>'],
    ['empty', '', ''],
  ])('%s', (_name, text, decoded) => {
    expect(decodeXml(text)).toBe(decoded);
  });

  it('turns invalid code points into U+FFFD', () => {
    expect(decodeXml('&#0;&#xD800;&#xDFFF;&#x110000;&#1114112;')).toBe('\uFFFD'.repeat(5));
    expect(decodeXml('&#x10FFFF;&#xD7FF;&#xE000;')).toBe('\u{10FFFF}\uD7FF\uE000');
  });

  it('leaves references longer than the limit as written', () => {
    expect(decodeXml('&#x0000041;&#00000065;')).toBe('&#x0000041;&#00000065;');
  });
});

describe('codePoint', () => {
  it('gives the character or U+FFFD', () => {
    expect([0x41, 0, -1, 0xd800, 0x10ffff, 0x110000].map(codePoint)).toEqual([
      'A',
      '\uFFFD',
      '\uFFFD',
      '\uFFFD',
      '\u{10FFFF}',
      '\uFFFD',
    ]);
  });
});

describe('list, nodes and child', () => {
  const root = child(
    parse('<r><one a="1"/><two a="1"/><two a="2"/><empty></empty><text>hi</text></r>'),
    'r',
  );

  it('list: absent, single and repeated values as arrays', () => {
    expect(list(undefined)).toEqual([]);
    expect(list('x')).toEqual(['x']);
    expect(list(['x', 'y'])).toEqual(['x', 'y']);
    expect(list(null)).toEqual([null]);
  });

  it('nodes: absent, single and repeated elements', () => {
    expect(nodes(root, 'missing')).toEqual([]);
    expect(nodes(undefined, 'one')).toEqual([]);
    expect(nodes(root, 'one')).toEqual([{ '@a': '1' }]);
    expect(nodes(root, 'two').map((node) => attr(node, 'a'))).toEqual(['1', '2']);
  });

  it('nodes: an empty or text-only element counts as one element without content', () => {
    expect(nodes(root, 'empty')).toEqual([{}]);
    expect(nodes(root, 'text')).toEqual([{}]);
  });

  it('child: the first element of that name, or undefined', () => {
    expect(attr(child(root, 'two'), 'a')).toBe('1');
    expect(child(root, 'missing')).toBeUndefined();
    expect(child(undefined, 'two')).toBeUndefined();
  });
});

describe('attr', () => {
  const node = child(parse('<e name="a &amp; b &#x41;" empty="" plain="x"/>'), 'e');

  it('decodes entities; null when absent', () => {
    expect(attr(node, 'name')).toBe('a & b A');
    expect(attr(node, 'empty')).toBe('');
    expect(attr(node, 'plain')).toBe('x');
    expect(attr(node, 'missing')).toBeNull();
    expect(attr(undefined, 'name')).toBeNull();
  });

  it('reads only attributes, never a child element of the same name', () => {
    expect(attr(child(parse('<e><name>x</name></e>'), 'e'), 'name')).toBeNull();
  });
});

describe('textOf and rawText', () => {
  const root = child(parse('<r><a>x &lt; y</a><b id="1">t &amp; u</b><c id="2"/><d></d></r>'), 'r');

  it('text of a text-only element and of one with attributes', () => {
    expect(textOf(root?.a)).toBe('x < y');
    expect(textOf(root?.b)).toBe('t & u');
    expect(rawText(root?.a)).toBe('x &lt; y');
    expect(rawText(root?.b)).toBe('t &amp; u');
  });

  it('an empty element is "", one with only attributes or none at all has no text', () => {
    expect(textOf(root?.d)).toBe('');
    expect(textOf(root?.c)).toBeNull();
    expect(textOf(undefined)).toBeNull();
    expect(textOf(['x'])).toBeNull();
    expect(rawText(root?.c)).toBeNull();
  });

  it('CDATA kept apart is appended verbatim after the decoded text', () => {
    const cdata = child(
      parse('<r><a>&amp;<![CDATA[<b>&amp;</b>]]><![CDATA[!]]></a></r>', true),
      'r',
    );
    expect(textOf(cdata?.a)).toBe('&<b>&amp;</b>!');
    const only = child(parse('<r><a id="1"><![CDATA[&lt;]]></a></r>', true), 'r');
    expect(textOf(only?.a)).toBe('&lt;');
  });
});

describe('endOfLast', () => {
  it('the end of the last of the end tags after a position; -1 when none', () => {
    const xml = '<r><a></a><b></b><a></a><c>';
    expect(endOfLast(xml, ['</a>', '</b>'], 0)).toBe('<r><a></a><b></b><a></a>'.length);
    expect(endOfLast(xml, ['</b>'], 0)).toBe('<r><a></a><b></b>'.length);
    expect(endOfLast(xml, ['</b>'], xml.indexOf('</b>'))).toBe(-1);
    expect(endOfLast(xml, ['</c>'], -1)).toBe(-1);
    expect(endOfLast(xml, [], -1)).toBe(-1);
  });
});
