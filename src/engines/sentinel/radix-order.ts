/**
 * Sorting in linear time: items ordered by a 64-bit key (two 32-bit halves), with a least
 * significant digit radix sort of four 16-bit passes, and the rare items whose keys are equal
 * ordered by a full comparison. Correlation orders a million findings this way instead of with a
 * comparison sort, whose n log n comparisons (each reaching into strings all over memory) made
 * the time grow faster than the number of findings.
 *
 * The key must agree with the comparison: a smaller key means an earlier item. Items with equal
 * keys may be in any order for the key, and the comparison decides between them.
 *
 * Each half of a key is 32 bits, compared unsigned; it may be given as an unsigned or as a signed
 * 32-bit integer (the same bits). The working lists are plain arrays holding the halves as signed
 * integers (V8 keeps small integers in the array itself), not typed arrays, whose memory outside
 * V8's heap would start a full collection of the whole heap at every 64 MB (correlate.ts,
 * "Memory").
 */

/** Below this many items a comparison sort is quicker than four passes over 65,536 buckets. */
export const RADIX_THRESHOLD = 2048;

const DIGIT_BITS = 16;
const BUCKETS = 1 << DIGIT_BITS;
const DIGIT_MASK = BUCKETS - 1;

/** One 16-bit digit of the key: which half, and how far to shift it. */
interface Digit {
  readonly half: 'hi' | 'lo';
  readonly shift: number;
}

/** Items and the two halves of their keys, as signed 32-bit integers. */
interface Lists {
  items: number[];
  hi: number[];
  lo: number[];
}

/** Sorts items with their keys by one 16-bit digit, stably, into the `to` lists. */
function pass(from: Lists, to: Lists, digit: Digit, counts: number[]): boolean {
  const count = from.items.length;
  const keys = digit.half === 'hi' ? from.hi : from.lo;
  const shift = digit.shift;
  counts.fill(0);
  for (let i = 0; i < count; i++) {
    const d = ((keys[i] ?? 0) >>> shift) & DIGIT_MASK;
    counts[d] = (counts[d] ?? 0) + 1;
  }
  // One digit for all: this pass would not move anything.
  if (counts[((keys[0] ?? 0) >>> shift) & DIGIT_MASK] === count) {
    return false;
  }
  let offset = 0;
  for (let digit = 0; digit < BUCKETS; digit++) {
    const size = counts[digit] ?? 0;
    counts[digit] = offset;
    offset += size;
  }
  for (let i = 0; i < count; i++) {
    const hi = from.hi[i] ?? 0;
    const lo = from.lo[i] ?? 0;
    const d = ((keys[i] ?? 0) >>> shift) & DIGIT_MASK;
    const at = counts[d] ?? 0;
    counts[d] = at + 1;
    to.items[at] = from.items[i] ?? 0;
    to.hi[at] = hi;
    to.lo[at] = lo;
  }
  return true;
}

/** Least significant first. */
const DIGITS: readonly Digit[] = [
  { half: 'lo', shift: 0 },
  { half: 'lo', shift: DIGIT_BITS },
  { half: 'hi', shift: 0 },
  { half: 'hi', shift: DIGIT_BITS },
];

/** Orders each run of equal keys by the comparison. */
function orderTies({ items, hi, lo }: Lists, compare: (a: number, b: number) => number): void {
  let start = 0;
  for (let i = 1; i <= items.length; i++) {
    if (i < items.length && hi[i] === hi[start] && lo[i] === lo[start]) {
      continue;
    }
    if (i - start > 1) {
      const tied = items.slice(start, i).sort(compare);
      for (let k = 0; k < tied.length; k++) {
        items[start + k] = tied[k] ?? 0;
      }
    }
    start = i;
  }
}

/** A copy of the values as signed 32-bit integers. */
function signedCopy(values: ArrayLike<number>): number[] {
  const copy = new Array<number>(values.length);
  for (let i = 0; i < values.length; i++) {
    copy[i] = (values[i] ?? 0) | 0;
  }
  return copy;
}

/** A list of `count` zeros. */
const zeros = (count: number) => new Array<number>(count).fill(0);

/**
 * The items in ascending key order; items with equal keys in `compare`'s order. `hi[i]` and
 * `lo[i]` are the key of `items[i]` (32 bits each, compared unsigned). Linear in the number of
 * items (apart from the ties). The arguments are not modified.
 * @example radixOrder([7, 8], [2, 1], [0, 0], cmp) // [8, 7]
 */
export function radixOrder(
  items: ArrayLike<number>,
  hi: ArrayLike<number>,
  lo: ArrayLike<number>,
  compare: (a: number, b: number) => number,
): number[] {
  const count = items.length;
  if (count < RADIX_THRESHOLD) {
    const unsigned = (half: ArrayLike<number>, at: number) => (half[at] ?? 0) >>> 0;
    const order = Array.from({ length: count }, (_, position) => position).sort(
      (a, b) =>
        unsigned(hi, a) - unsigned(hi, b) ||
        unsigned(lo, a) - unsigned(lo, b) ||
        compare(items[a] ?? 0, items[b] ?? 0),
    );
    return order.map((position) => items[position] ?? 0);
  }
  let from: Lists = { items: signedCopy(items), hi: signedCopy(hi), lo: signedCopy(lo) };
  let to: Lists = { items: zeros(count), hi: zeros(count), lo: zeros(count) };
  const counts = zeros(BUCKETS);
  for (const digit of DIGITS) {
    if (pass(from, to, digit, counts)) {
      [from, to] = [to, from];
    }
  }
  orderTies(from, compare);
  return from.items;
}
