/**
 * REQUIRE_VERIFIED_TARGETS (issue 24), pure: which scans need a verified asset covering their
 * target. `off` (the default): none, as the contract has it. `intrusive`: every scan that runs an
 * engine other than the passive ones, which only read public sources about a domain
 * (theHarvester, sublist3r); a sentinel scan counts with the engines it runs. `all`: every scan.
 */
export type RequireVerifiedTargets = 'off' | 'intrusive' | 'all';

export const REQUIRE_VERIFIED_TARGETS_VALUES: readonly RequireVerifiedTargets[] = [
  'off',
  'intrusive',
  'all',
];

export const PASSIVE_ENGINES: readonly string[] = ['harvester', 'sublist3r'];

/** The first engine of `engines` (the scan's own, then those it runs) that needs a verified target. */
export function engineNeedingVerification(
  policy: RequireVerifiedTargets,
  engines: readonly string[],
): string | null {
  if (policy === 'off') {
    return null;
  }
  return engines.find((engine) => policy === 'all' || !PASSIVE_ENGINES.includes(engine)) ?? null;
}
