import { describe, expect, it } from 'vitest';
import { sqlmapFailure } from './failure.js';

describe('sqlmapFailure', () => {
  it('reads the verdict of an unreachable target as a fixed message, without the system error', () => {
    expect(
      sqlmapFailure(
        "[15:29:57] [CRITICAL] unable to connect to the target URL ('Connection refused')",
      ),
    ).toBe('unable to connect to the target URL');
  });

  it('ignores the retry notice that comes before the verdict', () => {
    expect(
      sqlmapFailure(
        "[15:29:57] [CRITICAL] unable to connect to the target URL ('Connection refused'). sqlmap is going to retry the request(s)",
      ),
    ).toBeNull();
  });

  it('reports a URL without parameters to test', () => {
    expect(
      sqlmapFailure(
        "[10:00:00] [CRITICAL] no parameter(s) found for testing in the provided data (e.g. GET parameter 'id' in 'www.site.com/index.php?id=1')",
      ),
    ).toBe('no parameter found for testing in the target URL');
  });

  it.each([
    "[10:00:00] [CRITICAL] host 'shop.example' does not exist",
    "[10:00:00] [CRITICAL] problem occurred while resolving a host name 'shop.example' ('timed out')",
  ])('reports a name sqlmap could not resolve, without the name: %s', (line) => {
    expect(sqlmapFailure(line)).toBe('the target host name did not resolve for sqlmap');
  });

  it.each([
    "[10:00:00] [CRITICAL] all tested parameters do not appear to be injectable. Try to increase values for '--level'/'--risk' options",
    "[10:00:00] [WARNING] GET parameter 'q' does not seem to be injectable",
    "[10:00:00] [INFO] GET parameter 'q' is 'Generic UNION query (NULL) - 1 to 20 columns' injectable",
    'unable to connect to the target URL',
    '',
  ])('is null for a line that is not a failure: %s', (line) => {
    expect(sqlmapFailure(line)).toBeNull();
  });
});
