/**
 * Which form field a refusal of the service is about, so a form can show the contract's code and
 * message next to that field. The catalog's messages name the field for the body codes
 * (`Missing required field: target`, `Field options.limit must be of type integer`,
 * `Invalid value for field options.ports: …`); the other codes are each about one field.
 */

/** Codes that are about one field of a scan request, whatever their message. */
const FIELD_OF_CODE: Readonly<Record<string, string>> = {
  INVALID_TARGET: 'target',
  TARGET_NOT_ALLOWED: 'target',
  TARGET_NOT_VERIFIED: 'target',
  INVALID_SCAN_TYPE: 'scanType',
  SCAN_TYPE_NOT_ALLOWED: 'scanType',
  INVALID_PRIORITY: 'priority',
  TEMPLATE_NOT_FOUND: 'templateId',
  INVALID_ASSET_ID: 'assetId',
  INVALID_WEBHOOK_URL: 'callbackUrl',
  WEBHOOK_URL_UNREACHABLE: 'callbackUrl',
};

const NAMED_FIELD = [
  /^Missing required field: ([A-Za-z0-9_.[\]-]+)/,
  /^Field ([A-Za-z0-9_.[\]-]+) must be of type/,
  /^Invalid value for field ([A-Za-z0-9_.[\]-]+):/,
];

/**
 * The dotted field a refusal names (`options.ports`, `target`), or null when it names none.
 * @example fieldOfError('INVALID_FIELD_VALUE', 'Invalid value for field options.ports: …') // 'options.ports'
 */
export function fieldOfError(code: string, message: string): string | null {
  for (const pattern of NAMED_FIELD) {
    const match = pattern.exec(message);
    if (match?.[1] !== undefined) {
      return match[1].replace(/\[(\d+)\]/g, '.$1');
    }
  }
  return FIELD_OF_CODE[code] ?? null;
}

/**
 * The option field (its path in the options, `authentication.type`) a refused field stands for,
 * among `paths`: the field itself or the nearest one above it (`scripts.2` → `scripts`). Null for
 * a field outside the options or one the form has no field for.
 */
export function optionPathOf(field: string | null, paths: readonly string[]): string | null {
  if (field === null || !field.startsWith('options.')) {
    return null;
  }
  const known = new Set(paths);
  const keys = field.slice('options.'.length).split('.');
  for (let length = keys.length; length > 0; length -= 1) {
    const candidate = keys.slice(0, length).join('.');
    if (known.has(candidate)) {
      return candidate;
    }
  }
  return null;
}
