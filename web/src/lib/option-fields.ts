/**
 * An engine's options as form fields: the JSON Schema GET /api/v1/engines serves for each engine
 * (`optionsSchema`) mapped to field descriptors, and the values a person entered mapped back to a
 * scan request's `options`. Pure, so the new-scan form only renders what these functions decide.
 *
 * Only the fields a person changed are sent: an untouched field keeps the engine's default (or a
 * chosen template's value, which the service merges key by key). What the service refuses comes
 * back as the contract's error; nothing here second-guesses its validation (a number field that
 * does not read as a number is sent as typed, and the service names the field).
 */
import { SECRET_OPTION_KEYS } from '../../../src/domain/secrets/secret-options.js';

interface FieldBase {
  /** Dotted path from the options' root: `ports`, `authentication.type`. */
  readonly path: string;
  readonly label: string;
  /** The schema's description, as help text. */
  readonly help: string | null;
  readonly required: boolean;
}

export type OptionField =
  | (FieldBase & {
      readonly kind: 'text';
      readonly placeholder: string;
      readonly maxLength: number | null;
      /** A credential (shown as dots, never echoed). */
      readonly secret: boolean;
    })
  | (FieldBase & {
      readonly kind: 'number';
      readonly integer: boolean;
      readonly min: number | null;
      readonly max: number | null;
      readonly placeholder: string;
    })
  | (FieldBase & {
      readonly kind: 'select';
      readonly choices: readonly string[];
      /** The choice shown when nothing was picked; null: an empty choice ("engine default"). */
      readonly defaultChoice: string | null;
    })
  | (FieldBase & { readonly kind: 'checkbox'; readonly defaultValue: boolean })
  /** A boolean without a default: unset (the tool decides), yes or no. */
  | (FieldBase & { readonly kind: 'tristate' })
  /** A value the schema allows only one of (sqlmap's `batch`): shown, never sent. */
  | (FieldBase & { readonly kind: 'fixed'; readonly value: string })
  /** An array of enumerated strings: one checkbox per choice. */
  | (FieldBase & {
      readonly kind: 'multi';
      readonly choices: readonly string[];
      readonly defaultValue: readonly string[] | null;
    })
  /** An array of free strings: one comma- or line-separated text. */
  | (FieldBase & {
      readonly kind: 'list';
      readonly placeholder: string;
      readonly itemHelp: string | null;
    })
  /** A nested object (ZAP's `authentication`): sent when any of its fields is. */
  | (FieldBase & { readonly kind: 'group'; readonly fields: readonly OptionField[] })
  /** A shape this form does not know: JSON typed by hand. */
  | (FieldBase & { readonly kind: 'json' });

/** What a field holds in the form: text for text, numbers, selects, lists and JSON. */
export type FieldValue = string | boolean | readonly string[];

/** The fields a person changed, by path. */
export type FormValues = Readonly<Record<string, FieldValue>>;

type JsonSchema = Readonly<Record<string, unknown>>;

const isRecord = (value: unknown): value is JsonSchema =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

const stringsOf = (value: unknown): string[] | null =>
  Array.isArray(value) && value.every((item) => typeof item === 'string') ? value : null;

/**
 * `serviceDetection` → "Service detection", `maxTime` → "Max time".
 * @example labelOf('topPorts') // 'Top ports'
 */
export function labelOf(name: string): string {
  const words = name
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .replace(/[_-]+/g, ' ')
    .toLowerCase();
  return words.charAt(0).toUpperCase() + words.slice(1);
}

/**
 * Help text as a sentence: ends with a full stop unless it already ends with punctuation.
 * @example asSentence('Crawl depth') // 'Crawl depth.'
 */
export function asSentence(text: string): string {
  const trimmed = text.trim();
  return trimmed === '' || /[.!?)]$/.test(trimmed) ? trimmed : `${trimmed}.`;
}

const shown = (value: unknown): string =>
  Array.isArray(value) ? value.join(', ') : value === undefined ? '' : String(value);

function fieldOf(name: string, path: string, schema: JsonSchema, required: boolean): OptionField {
  const base: FieldBase = {
    path,
    label: labelOf(name),
    help: typeof schema.description === 'string' ? schema.description : null,
    required,
  };
  const enumValues = Array.isArray(schema.enum) ? schema.enum : null;
  if (enumValues !== null && enumValues.length === 1 && schema.type !== 'string') {
    return { ...base, kind: 'fixed', value: String(enumValues[0]) };
  }
  switch (schema.type) {
    case 'string': {
      const choices = stringsOf(enumValues);
      if (choices !== null) {
        const defaultChoice = typeof schema.default === 'string' ? schema.default : null;
        return { ...base, kind: 'select', choices, defaultChoice };
      }
      return {
        ...base,
        kind: 'text',
        placeholder: shown(schema.default),
        maxLength: typeof schema.maxLength === 'number' ? schema.maxLength : null,
        secret: SECRET_OPTION_KEYS.has(name),
      };
    }
    case 'integer':
    case 'number':
      return {
        ...base,
        kind: 'number',
        integer: schema.type === 'integer',
        min: typeof schema.minimum === 'number' ? schema.minimum : null,
        max: typeof schema.maximum === 'number' ? schema.maximum : null,
        placeholder: shown(schema.default),
      };
    case 'boolean':
      return typeof schema.default === 'boolean'
        ? { ...base, kind: 'checkbox', defaultValue: schema.default }
        : { ...base, kind: 'tristate' };
    case 'array': {
      const items = isRecord(schema.items) ? schema.items : {};
      if (items.type !== 'string') {
        break;
      }
      const choices = stringsOf(items.enum);
      if (choices !== null) {
        return { ...base, kind: 'multi', choices, defaultValue: stringsOf(schema.default) };
      }
      return {
        ...base,
        kind: 'list',
        placeholder: shown(schema.default),
        itemHelp: typeof items.description === 'string' ? items.description : null,
      };
    }
    case 'object':
      return { ...base, kind: 'group', fields: optionFields(schema, `${path}.`) };
    default:
      break;
  }
  return { ...base, kind: 'json' };
}

/**
 * The form fields of an engine's `optionsSchema`, in the schema's order. Anything that is not an
 * object schema has no fields.
 */
export function optionFields(schema: unknown, prefix = ''): OptionField[] {
  if (!isRecord(schema) || !isRecord(schema.properties)) {
    return [];
  }
  const required = new Set(stringsOf(schema.required) ?? []);
  return Object.entries(schema.properties)
    .filter((entry): entry is [string, JsonSchema] => isRecord(entry[1]))
    .map(([name, property]) => fieldOf(name, `${prefix}${name}`, property, required.has(name)));
}

/** Every field with a value of its own (groups flattened), in order. */
export function leafFields(fields: readonly OptionField[]): OptionField[] {
  return fields.flatMap((field) => (field.kind === 'group' ? leafFields(field.fields) : [field]));
}

/** The value at a dotted path of an options object (a template's), if any. */
function valueAt(options: unknown, path: string): unknown {
  let value: unknown = options;
  for (const key of path.split('.')) {
    value = isRecord(value) ? value[key] : undefined;
  }
  return value;
}

/**
 * What a field shows: the person's value, else the template's, else the schema's default (for
 * text, numbers and lists the default is the placeholder, so the box shows empty).
 */
export function shownValue(
  field: OptionField,
  values: FormValues,
  templateOptions: unknown = {},
): FieldValue {
  const own = values[field.path];
  if (own !== undefined) {
    return own;
  }
  const fromTemplate = valueAt(templateOptions, field.path);
  switch (field.kind) {
    case 'checkbox':
      return typeof fromTemplate === 'boolean' ? fromTemplate : field.defaultValue;
    case 'tristate':
      return typeof fromTemplate === 'boolean' ? String(fromTemplate) : '';
    case 'select':
      return typeof fromTemplate === 'string' ? fromTemplate : (field.defaultChoice ?? '');
    case 'multi':
      return stringsOf(fromTemplate) ?? field.defaultValue ?? [];
    case 'json':
      return fromTemplate === undefined ? '' : JSON.stringify(fromTemplate);
    case 'group':
    case 'fixed':
      return '';
    default:
      return fromTemplate === undefined ? '' : shown(fromTemplate);
  }
}

/** Splits a list typed as `a, b` or one item a line. */
export function splitList(text: string): string[] {
  return text
    .split(/[,\n]/)
    .map((item) => item.trim())
    .filter((item) => item !== '');
}

/** The JSON value of one changed field, or undefined for "leave it out". */
function requestValue(field: OptionField, value: FieldValue): unknown {
  switch (field.kind) {
    case 'checkbox':
      return value === true;
    case 'tristate':
      return value === 'true' ? true : value === 'false' ? false : undefined;
    case 'multi': {
      const chosen = Array.isArray(value) ? [...value] : [];
      // Nothing chosen where the schema has no default means "the tool's own set".
      return chosen.length === 0 && field.defaultValue === null ? undefined : chosen;
    }
    case 'list':
      return typeof value === 'string' ? splitList(value) : [];
    case 'number': {
      const text = String(value).trim();
      if (text === '') {
        return undefined;
      }
      const number = Number(text);
      return Number.isFinite(number) ? number : text;
    }
    case 'json': {
      const text = String(value).trim();
      if (text === '') {
        return undefined;
      }
      try {
        return JSON.parse(text) as unknown;
      } catch {
        return text;
      }
    }
    case 'fixed':
    case 'group':
      return undefined;
    default: {
      const text = String(value);
      return text.trim() === '' ? undefined : text;
    }
  }
}

function setAt(target: Record<string, unknown>, path: string, value: unknown): void {
  const keys = path.split('.');
  const last = keys.pop() ?? path;
  let node = target;
  for (const key of keys) {
    const next = node[key];
    if (isRecord(next)) {
      node = next as Record<string, unknown>;
    } else {
      const created: Record<string, unknown> = {};
      node[key] = created;
      node = created;
    }
  }
  node[last] = value;
}

/**
 * The request's `options` from the fields a person changed: each changed field that still holds
 * something, nested by its path. Empty text (and an empty choice) means "the default": left out.
 * @example optionsFromForm(optionFields(nmapSchema), { ports: '22,80', osDetection: true })
 *   // { ports: '22,80', osDetection: true }
 */
export function optionsFromForm(
  fields: readonly OptionField[],
  values: FormValues,
): Record<string, unknown> {
  const options: Record<string, unknown> = {};
  for (const field of leafFields(fields)) {
    const value = values[field.path];
    if (value === undefined) {
      continue;
    }
    const converted = requestValue(field, value);
    if (converted !== undefined) {
      setAt(options, field.path, converted);
    }
  }
  return options;
}
