/** Stand-ins for what the dashboard's unit tests lack: they run without a DOM and without keys. */

/** sessionStorage's contract over a Map, for the unit tests (they run without a DOM). */
export function memoryStorage(): Storage {
  const items = new Map<string, string>();
  return {
    get length() {
      return items.size;
    },
    clear: () => items.clear(),
    getItem: (key) => items.get(key) ?? null,
    key: (index) => [...items.keys()][index] ?? null,
    removeItem: (key) => {
      items.delete(key);
    },
    setItem: (key, value) => {
      items.set(key, String(value));
    },
  };
}

const encode = (value: unknown) =>
  btoa(String.fromCharCode(...new TextEncoder().encode(JSON.stringify(value))))
    .replace(/=+$/, '')
    .replace(/\+/g, '-')
    .replace(/\//g, '_');

/** A compact JWT with this payload and a made-up signature (the dashboard never verifies one). */
export const unsignedJwt = (payload: unknown, alg = 'RS256') =>
  `${encode({ alg, typ: 'JWT' })}.${encode(payload)}.c2ln`;
