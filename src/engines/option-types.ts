import { Type } from '@sinclair/typebox';

/** A name that reaches a command line: a word of letters, digits and `_ . : / -`, no leading dash. */
export const ToolWord = Type.String({ pattern: '^[a-zA-Z0-9][a-zA-Z0-9_.:/-]{0,127}$' });

/** A duration such as `600s`, `10m` or `1h`. */
export const Duration = Type.String({
  pattern: '^[1-9][0-9]{0,5}[smh]$',
  description: 'Duration such as 600s, 10m or 1h',
});

/** Port list or ranges (`22,80,443`, `1-1024`, `U:53,T:80`). */
export const PortList = Type.String({
  pattern: '^([TU]:)?[0-9]{1,5}(-[0-9]{1,5})?(,([TU]:)?[0-9]{1,5}(-[0-9]{1,5})?){0,99}$',
  maxLength: 512,
  description: 'Port list or ranges, e.g. 22,80,443 or 1-1024',
});
