/** The strict text-format parser the metrics tests read /metrics with refuses what Prometheus would. */
import { describe, expect, it } from 'vitest';
import { parsePrometheusText, sampleValue } from './prometheus-text.js';

const VALID = `# HELP a_total Things.
# TYPE a_total counter
a_total{kind="x\\"y\\\\z\\n"} 3
a_total{kind="w"} 1 1700000000000
# TYPE h_seconds histogram
h_seconds_bucket{le="0.5"} 1
h_seconds_bucket{le="+Inf"} 2
h_seconds_sum 1.5
h_seconds_count 2
# TYPE g gauge
g Nan
`;

describe('parsePrometheusText', () => {
  it('reads families, labels with escapes, values and histograms', () => {
    const families = parsePrometheusText(VALID);
    expect(families.get('a_total')?.help).toBe('Things.');
    expect(sampleValue(families, 'a_total', { kind: 'x"y\\z\n' })).toBe(3);
    expect(sampleValue(families, 'a_total')).toBe(4);
    expect(sampleValue(families, 'h_seconds_count')).toBe(2);
    expect(sampleValue(families, 'g')).toBeNaN();
  });

  it.each([
    ['a sample before its TYPE', 'x 1\n'],
    ['a second TYPE', '# TYPE x gauge\n# TYPE x gauge\n'],
    ['an unknown type', '# TYPE x meter\n'],
    ['a bad value', '# TYPE x gauge\nx one\n'],
    ['an unquoted label', '# TYPE x gauge\nx{a=b} 1\n'],
    ['a bad escape', '# TYPE x gauge\nx{a="\\t"} 1\n'],
    ['a series twice', '# TYPE x gauge\nx{a="1"} 1\nx{a="1"} 2\n'],
    ['no final newline', '# TYPE x gauge\nx 1'],
    [
      'a histogram whose +Inf bucket is not its count',
      '# TYPE h histogram\nh_bucket{le="+Inf"} 2\nh_sum 1\nh_count 3\n',
    ],
    [
      'decreasing buckets',
      '# TYPE h histogram\nh_bucket{le="1"} 2\nh_bucket{le="+Inf"} 1\nh_sum 1\nh_count 1\n',
    ],
    ['a suffix the type does not have', '# TYPE c_total counter\nc_total_bucket 1\n'],
  ])('refuses %s', (_what, text) => {
    expect(() => parsePrometheusText(text)).toThrow();
  });
});
