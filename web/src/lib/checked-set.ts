/** The ticked items of a checkbox group, always in the order of the list they come from. */

/** Adds or removes one item of a known list, keeping the list's order. */
export function toggleIn<T extends string>(
  known: readonly T[],
  chosen: readonly T[],
  item: T,
  on: boolean,
): T[] {
  return known.filter((each) => (each === item ? on : chosen.includes(each)));
}
