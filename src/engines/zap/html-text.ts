/**
 * ZAP's HTML fragments as plain text. `desc`, `solution`, `reference` and `otherinfo` are HTML
 * paragraphs in the JSON report and in older XML (`<p>…</p>`), plain text in newer XML. Only the
 * formatting tags ZAP writes are removed: ZAP also writes literal tag names as text without
 * escaping them ("No <base> tag was specified in the HTML <head> tag"), and those stay. The
 * result is text to be escaped by whoever displays it, never HTML to render.
 */
import { codePoint } from '../xml-tree.js';

/** Tags that end a line (block elements and `<br>`). */
const BLOCK_TAGS = new Set([
  'p',
  'br',
  'div',
  'li',
  'ul',
  'ol',
  'pre',
  'tr',
  'table',
  'h1',
  'h2',
  'h3',
  'h4',
  'h5',
  'h6',
  'hr',
  'blockquote',
]);

/** Inline formatting tags, removed without a line break. */
const INLINE_TAGS = new Set([
  'a',
  'b',
  'i',
  'u',
  'em',
  'strong',
  'code',
  'span',
  'td',
  'th',
  'tbody',
  'thead',
]);

const TAG = /<(\/?)([a-zA-Z][a-zA-Z0-9]*)\b[^<>]*>/g;
const COMMENT = /<!--[\s\S]*?-->/g;
const ENTITY = /&(?:#[xX]([0-9a-fA-F]{1,6})|#([0-9]{1,7})|([a-zA-Z]{2,8}));/g;

const NAMED_ENTITIES: Readonly<Record<string, string>> = {
  amp: '&',
  lt: '<',
  gt: '>',
  quot: '"',
  apos: "'",
  nbsp: ' ',
  ndash: '–',
  mdash: '—',
  hellip: '…',
  lsquo: '‘',
  rsquo: '’',
  ldquo: '“',
  rdquo: '”',
  copy: '©',
  reg: '®',
};

/**
 * HTML (and XML) character references and the common named entities decoded; an unknown name
 * stays as written.
 * @example decodeEntities('a &lt;b&gt; &#39;c&#x27;') // "a <b> 'c'"
 */
export function decodeEntities(text: string): string {
  if (!text.includes('&')) {
    return text;
  }
  return text.replace(ENTITY, (match, hex?: string, dec?: string, name?: string) => {
    if (hex !== undefined) {
      return codePoint(Number.parseInt(hex, 16));
    }
    if (dec !== undefined) {
      return codePoint(Number.parseInt(dec, 10));
    }
    return NAMED_ENTITIES[name ?? ''] ?? match;
  });
}

/**
 * Plain text from a ZAP HTML fragment: formatting tags removed (block tags end a line),
 * entities decoded, each line trimmed with inner runs of spaces collapsed, blank lines dropped.
 * @example htmlToText('<p>Set the header.</p><p>See &lt;a&gt;</p>') // 'Set the header.\nSee <a>'
 */
export function htmlToText(html: string): string {
  const stripped = html.replace(COMMENT, '').replace(TAG, (match, _slash, name: string) => {
    const tag = name.toLowerCase();
    if (BLOCK_TAGS.has(tag)) {
      return '\n';
    }
    return INLINE_TAGS.has(tag) ? '' : match;
  });
  return decodeEntities(stripped)
    .split(/\r\n|\r|\n/)
    .map((line) => line.replace(/[ \t\u00a0]+/g, ' ').trim())
    .filter((line) => line !== '')
    .join('\n');
}

const URL_IN_TEXT = /https?:\/\/[^\s<>"']+/g;

function count(text: string, char: string): number {
  return text.split(char).length - 1;
}

/** Sentence punctuation after a URL removed; a closing `)` only when it closes nothing. */
function trimUrlEnd(url: string): string {
  let trimmed = url.replace(/[.,;:!?]+$/, '');
  while (trimmed.endsWith(')') && count(trimmed, ')') > count(trimmed, '(')) {
    trimmed = trimmed.slice(0, -1).replace(/[.,;:!?]+$/, '');
  }
  return trimmed;
}

/**
 * The http(s) URLs named in a ZAP `reference` field (one per paragraph or line), de-duplicated,
 * trailing punctuation removed.
 * @example referenceUrls('<p>https://a.example/x</p><p>https://b.example/.</p>') // ['https://a.example/x', 'https://b.example/']
 */
export function referenceUrls(reference: string): string[] {
  const text = htmlToText(reference);
  const urls = Array.from(text.matchAll(URL_IN_TEXT), (match) => trimUrlEnd(match[0]));
  return [...new Set(urls)];
}
