/**
 * A small YAML writer for the Automation Framework plan: block mappings and sequences of plain
 * data, every string written as a double-quoted scalar. Pure ASCII comes out: `"` and `\` are
 * escaped, and every character outside printable ASCII becomes `\uXXXX` (or `\UXXXXXXXX` beyond
 * the BMP), which YAML 1.1 (ZAP's SnakeYAML) and 1.2 both read back unchanged. So no value can end
 * its scalar, start a new line, key or document, or be folded: a line break inside a password is
 * `\n` in the file and a line break again in ZAP.
 */

export type YamlValue =
  | string
  | number
  | boolean
  | readonly YamlValue[]
  | { readonly [key: string]: YamlValue };

/** Keys written without quotes; any other key is quoted like a value. */
const PLAIN_KEY = /^[A-Za-z][A-Za-z0-9_-]*$/;

function hex(value: number, width: number): string {
  return value.toString(16).toUpperCase().padStart(width, '0');
}

/**
 * A string as a YAML double-quoted scalar, pure printable ASCII.
 * @example yamlString('a"b\n') // '"a\\"b\\u000A"'
 */
export function yamlString(value: string): string {
  let out = '"';
  for (const char of value) {
    const code = char.codePointAt(0) ?? 0;
    if (char === '"' || char === '\\') {
      out += `\\${char}`;
    } else if (code >= 0x20 && code <= 0x7e) {
      out += char;
    } else if (code <= 0xffff) {
      // Lone surrogates arrive here one at a time and stay what they were.
      out += `\\u${hex(code, 4)}`;
    } else {
      out += `\\U${hex(code, 8)}`;
    }
  }
  return `${out}"`;
}

function isMapping(value: YamlValue): value is { readonly [key: string]: YamlValue } {
  return typeof value === 'object' && !Array.isArray(value);
}

function scalar(value: string | number | boolean): string {
  if (typeof value === 'string') {
    return yamlString(value);
  }
  if (typeof value === 'number' && !Number.isFinite(value)) {
    throw new Error(`YAML value ${value} is not a finite number`);
  }
  return String(value);
}

function key(name: string): string {
  return PLAIN_KEY.test(name) ? name : yamlString(name);
}

/** Lines of a mapping's entries at `indent` spaces. */
function mappingLines(value: { readonly [key: string]: YamlValue }, indent: number): string[] {
  const pad = ' '.repeat(indent);
  return Object.entries(value).flatMap(([name, item]) => {
    if (Array.isArray(item)) {
      return item.length === 0
        ? [`${pad}${key(name)}: []`]
        : [`${pad}${key(name)}:`, ...sequenceLines(item, indent + 2)];
    }
    if (isMapping(item)) {
      return Object.keys(item).length === 0
        ? [`${pad}${key(name)}: {}`]
        : [`${pad}${key(name)}:`, ...mappingLines(item, indent + 2)];
    }
    return [`${pad}${key(name)}: ${scalar(item as string | number | boolean)}`];
  });
}

/** Lines of a sequence's items at `indent` spaces; a mapping item starts on the dash line. */
function sequenceLines(items: readonly YamlValue[], indent: number): string[] {
  const pad = ' '.repeat(indent);
  return items.flatMap((item) => {
    if (Array.isArray(item)) {
      return item.length === 0 ? [`${pad}- []`] : [`${pad}-`, ...sequenceLines(item, indent + 2)];
    }
    if (isMapping(item)) {
      const [first, ...rest] = mappingLines(item, indent + 2);
      return first === undefined ? [`${pad}- {}`] : [`${pad}- ${first.trimStart()}`, ...rest];
    }
    return [`${pad}- ${scalar(item as string | number | boolean)}`];
  });
}

/**
 * A YAML document (block style) for a mapping of plain data, ending with a newline.
 * @example renderYaml({ jobs: [{ type: 'spider' }] }) // 'jobs:\n  - type: "spider"\n'
 */
export function renderYaml(document: { readonly [key: string]: YamlValue }): string {
  return `${mappingLines(document, 0).join('\n')}\n`;
}
