/**
 * Reading the trees fast-xml-parser builds from scanner XML reports (nmap, nikto, wapiti,
 * theHarvester, ZAP). Pure and free of I/O.
 *
 * With XML_TREE_OPTIONS an element is an object (attributes as `@name`, text as `#text`, CDATA as
 * `#cdata` where the engine asks for it), a bare string when it has only text, '' when it is
 * empty, and an array when it is repeated. Nothing is entity-decoded by the parser
 * (`processEntities: false`, so no DTD-declared entity is ever expanded: no "billion laughs"); the
 * five XML entities and character references are decoded here, only in the values read.
 */
import type { X2jOptions } from 'fast-xml-parser';

/** One parsed element with attributes or children. */
export type XmlNode = Readonly<Record<string, unknown>>;

/**
 * The parser settings every engine shares: attributes kept as `@name`, every value left a string,
 * no entity processing, the XML declaration and processing instructions dropped. Engines spread
 * these and add their own (`cdataPropName`, `isArray`, `stopNodes`, `trimValues`, `jPath`).
 */
export const XML_TREE_OPTIONS: Readonly<X2jOptions> = {
  ignoreAttributes: false,
  attributeNamePrefix: '@',
  processEntities: false,
  htmlEntities: false,
  parseTagValue: false,
  parseAttributeValue: false,
  ignoreDeclaration: true,
  ignorePiTags: true,
};

export function isNode(value: unknown): value is XmlNode {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** An element repeated, once or not at all, always as an array. */
export function list(value: unknown): readonly unknown[] {
  return value === undefined ? [] : Array.isArray(value) ? value : [value];
}

/**
 * Child elements; an empty element (`<ports></ports>`) arrives as '' and counts as one, as does a
 * text-only one: both as `{}`, so only their attributes and children (none) can be read.
 */
export function nodes(parent: XmlNode | undefined, name: string): XmlNode[] {
  return list(parent?.[name]).map((item) => (isNode(item) ? item : {}));
}

/** The first child element of that name. */
export function child(parent: XmlNode | undefined, name: string): XmlNode | undefined {
  return nodes(parent, name)[0];
}

/** An attribute, entities decoded; null when absent. */
export function attr(node: XmlNode | undefined, name: string): string | null {
  const value = node?.[`@${name}`];
  return typeof value === 'string' ? decodeXml(value) : null;
}

/** The text of an element that may also carry attributes, as written (not decoded); null for none. */
export function rawText(value: unknown): string | null {
  const text = isNode(value) ? value['#text'] : value;
  return typeof text === 'string' ? text : null;
}

/**
 * Text content of an element that may also carry attributes: the text entity-decoded, then the
 * CDATA sections verbatim (only when the parser keeps them apart, `cdataPropName: '#cdata'`;
 * otherwise they are part of the text). Null when the element has neither.
 */
export function textOf(value: unknown): string | null {
  const plain = rawText(value);
  const raw = isNode(value) ? value['#cdata'] : undefined;
  const cdata = Array.isArray(raw) ? raw.join('') : typeof raw === 'string' ? raw : null;
  return plain === null && cdata === null ? null : decodeXml(plain ?? '') + (cdata ?? '');
}

// ---------------------------------------------------------------------------------------------
// Entities.

const ENTITY = /&(?:#x([0-9a-fA-F]{1,6})|#([0-9]{1,7})|(lt|gt|amp|quot|apos));/g;
const NAMED_ENTITIES: Readonly<Record<string, string>> = {
  lt: '<',
  gt: '>',
  amp: '&',
  quot: '"',
  apos: "'",
};

/** The character of a character reference; U+FFFD for 0, a surrogate or beyond U+10FFFF. */
export function codePoint(value: number): string {
  const valid = value > 0 && value <= 0x10ffff && (value < 0xd800 || value > 0xdfff);
  return valid ? String.fromCodePoint(value) : '\uFFFD';
}

/**
 * The XML predefined entities and character references; anything else stays as written.
 * @example decodeXml('a &lt;b&gt; &#39;c&#x27; &nbsp;') // "a <b> 'c' &nbsp;"
 */
export function decodeXml(text: string): string {
  if (!text.includes('&')) {
    return text;
  }
  return text.replace(ENTITY, (_match, hex?: string, dec?: string, name?: string) =>
    hex !== undefined
      ? codePoint(Number.parseInt(hex, 16))
      : dec !== undefined
        ? codePoint(Number.parseInt(dec, 10))
        : (NAMED_ENTITIES[name ?? ''] ?? ''),
  );
}

// ---------------------------------------------------------------------------------------------
// Cut-off documents.

/**
 * Where the last of these end tags (`'</host>'`) that starts after `after` ends: the length of
 * the text to keep when a cut-off document is closed after its last complete such element; -1
 * when there is none. Outside CDATA and comments an end tag can only be markup (in attribute
 * values and text `<` is escaped), so everything before it is complete.
 */
export function endOfLast(xml: string, endTags: readonly string[], after: number): number {
  return Math.max(
    -1,
    ...endTags.map((tag) => {
      const at = xml.lastIndexOf(tag);
      return at > after ? at + tag.length : -1;
    }),
  );
}
