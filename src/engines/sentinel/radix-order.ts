/**
 * Sorting in linear time: items ordered by a 64-bit key (two 32-bit halves), with a least
 * significant digit radix sort of four 16-bit passes, and the rare items whose keys are equal
 * ordered by a full comparison. Correlation orders a million findings this way instead of with a
 * comparison sort, whose n log n comparisons (each reaching into strings all over memory) made
 * the time grow faster than the number of findings.
 *
 * The key must agree with the comparison: a smaller key means an earlier item. Items with equal
 * keys may be in any order for the key, and the comparison decides between them.
 */

/** Below this many items a comparison sort is quicker than four passes over 65,536 buckets. */
export const RADIX_THRESHOLD = 2048;

const DIGIT_BITS = 16;
const BUCKETS = 1 << DIGIT_BITS;
const DIGIT_MASK = BUCKETS - 1;

/** Sorts items with their keys by one 16-bit digit, stably, into the `to` arrays. */
function pass(
  from: { items: Int32Array; hi: Uint32Array; lo: Uint32Array },
  to: { items: Int32Array; hi: Uint32Array; lo: Uint32Array },
  digit: Digit,
  counts: Int32Array,
): boolean {
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

/** One 16-bit digit of the key: which half, and how far to shift it. */
interface Digit {
  readonly half: 'hi' | 'lo';
  readonly shift: number;
}

/** Least significant first. */
const DIGITS: readonly Digit[] = [
  { half: 'lo', shift: 0 },
  { half: 'lo', shift: DIGIT_BITS },
  { half: 'hi', shift: 0 },
  { half: 'hi', shift: DIGIT_BITS },
];

/** Orders each run of equal keys by the comparison. */
function orderTies(
  items: Int32Array,
  hi: Uint32Array,
  lo: Uint32Array,
  compare: (a: number, b: number) => number,
): void {
  let start = 0;
  for (let i = 1; i <= items.length; i++) {
    if (i < items.length && hi[i] === hi[start] && lo[i] === lo[start]) {
      continue;
    }
    if (i - start > 1) {
      items.set(Array.from(items.subarray(start, i)).sort(compare), start);
    }
    start = i;
  }
}

/**
 * The items in ascending key order; items with equal keys in `compare`'s order. `hi[i]` and
 * `lo[i]` are the key of `items[i]`. Linear in the number of items (apart from the ties). The
 * arguments are not modified.
 * @example radixOrder(Int32Array.of(7, 8), Uint32Array.of(2, 1), Uint32Array.of(0, 0), cmp) // Int32Array [8, 7]
 */
export function radixOrder(
  items: Int32Array,
  hi: Uint32Array,
  lo: Uint32Array,
  compare: (a: number, b: number) => number,
): Int32Array {
  const count = items.length;
  if (count < RADIX_THRESHOLD) {
    const order = Array.from(items.keys()).sort(
      (a, b) =>
        (hi[a] ?? 0) - (hi[b] ?? 0) ||
        (lo[a] ?? 0) - (lo[b] ?? 0) ||
        compare(items[a] ?? 0, items[b] ?? 0),
    );
    return Int32Array.from(order, (position) => items[position] ?? 0);
  }
  let from = { items: items.slice(), hi: hi.slice(), lo: lo.slice() };
  let to = { items: new Int32Array(count), hi: new Uint32Array(count), lo: new Uint32Array(count) };
  const counts = new Int32Array(BUCKETS);
  for (const digit of DIGITS) {
    if (pass(from, to, digit, counts)) {
      [from, to] = [to, from];
    }
  }
  orderTies(from.items, from.hi, from.lo, compare);
  return from.items;
}
