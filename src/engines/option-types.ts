import { Type } from '@sinclair/typebox';

/** A name that reaches a command line: a word of letters, digits and `_ . : / -`, no leading dash. */
export const ToolWord = Type.String({ pattern: '^[a-zA-Z0-9][a-zA-Z0-9_.:/-]{0,127}$' });

/** A duration such as `600s`, `10m` or `1h`. */
export const Duration = Type.String({
  pattern: '^[1-9][0-9]{0,5}[smh]$',
  description: 'Duration such as 600s, 10m or 1h',
});

/** One port number, 0 to 65535 (a regular expression, so that the schema alone refuses 70000). */
const PORT = '(6553[0-5]|655[0-2][0-9]|65[0-4][0-9]{2}|6[0-4][0-9]{3}|[1-5][0-9]{4}|[0-9]{1,4})';
const PORT_ITEM = `([TU]:)?${PORT}(-${PORT})?`;

/** Port list or ranges (`22,80,443`, `1-1024`, `U:53,T:80`). */
export const PortList = Type.String({
  pattern: `^${PORT_ITEM}(,${PORT_ITEM}){0,99}$`,
  maxLength: 512,
  'x-reason': '<value> is not a list of ports or ranges from 0 to 65535 (e.g. 22,80,443 or 1-1024)',
  description: 'Port list or ranges of ports 0-65535, e.g. 22,80,443 or 1-1024',
});
