/**
 * Safe reading of a finding's `raw` record. `raw` is whatever an engine's parser kept of the
 * tool's record (plain JSON data, typed `unknown`); correlation reads a few fields of it (ZAP's
 * confidence, the attacked parameter, nuclei's template id). These readers never throw and
 * return null for anything that is not there or not of the expected type, so a finding with an
 * odd `raw` is simply correlated with less information. Own properties only: a data-chosen key
 * such as `__proto__` can never reach the prototype.
 */

/** A property of `raw` when `raw` is a plain object (not an array) that has it, else undefined. */
export function rawField(raw: unknown, key: string): unknown {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw) || !Object.hasOwn(raw, key)) {
    return undefined;
  }
  return (raw as Readonly<Record<string, unknown>>)[key];
}

/** A string property (trimmed), a finite number as text, or null; blank strings are null. */
export function rawText(raw: unknown, key: string): string | null {
  const value = rawField(raw, key);
  const text =
    typeof value === 'string'
      ? value.trim()
      : typeof value === 'number' && Number.isFinite(value)
        ? String(value)
        : '';
  return text === '' ? null : text;
}

/** The items of an array property; an empty list for anything else. */
export function rawList(raw: unknown, key: string): readonly unknown[] {
  const value = rawField(raw, key);
  return Array.isArray(value) ? value : [];
}
