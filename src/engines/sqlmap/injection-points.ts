/**
 * The injection points one sqlmap report names, as both readers (`log-reader.ts`,
 * `csv-reader.ts`) collect them: de-duplicated on (URL, place, parameter), their techniques merged,
 * and every list held to a limit, since a report comes from a tool run against an untrusted target.
 */

/** Distinct injection points kept; more are counted in a warning. */
export const MAX_POINTS = 1000;
/** Techniques kept per injection point (sqlmap has six). */
const MAX_TECHNIQUES = 20;
/** Characters of a payload, title or fingerprint value kept in evidence. */
const MAX_VALUE_CHARS = 2000;
/** Characters of a place or parameter name kept (they go into the rule id and title). */
export const MAX_NAME_CHARS = 256;

export interface Technique {
  readonly type: string;
  title: string | null;
  payload: string | null;
}

export interface InjectionPoint {
  readonly place: string;
  readonly parameter: string;
  /** The CSV's `Target URL`; null for the log, which names no URL. */
  readonly url: string | null;
  readonly techniques: Technique[];
  /** The CSV's technique letters (`BTU`), merged over repeated rows; '' for the log. */
  letters: string;
  notes: string;
  readonly facts: Map<string, string>;
  databases: string[];
}

/** A value cut to MAX_VALUE_CHARS for evidence, marked with `…` when cut. */
export function clip(value: string): string {
  return value.length <= MAX_VALUE_CHARS ? value : `${value.slice(0, MAX_VALUE_CHARS)}…`;
}

/** The injection points of one report, in the order they were first named. */
export interface InjectionPoints {
  /** The point at (url, place, parameter), created when new; null once MAX_POINTS are kept. */
  pointFor(place: string, parameter: string, url: string | null): InjectionPoint | null;
  /** A new technique of this type on the point; null when the type is known or the list full. */
  techniqueFor(point: InjectionPoint, type: string): Technique | null;
  all(): InjectionPoint[];
  /** How many distinct points were not kept for MAX_POINTS. */
  dropped(): number;
}

export function createInjectionPoints(): InjectionPoints {
  const points = new Map<string, InjectionPoint>();
  let droppedPoints = 0;
  return {
    pointFor(rawPlace, rawParameter, url) {
      const place = rawPlace.slice(0, MAX_NAME_CHARS);
      const parameter = rawParameter.slice(0, MAX_NAME_CHARS);
      const key = JSON.stringify([url, place, parameter]);
      const known = points.get(key);
      if (known !== undefined) {
        return known;
      }
      if (points.size >= MAX_POINTS) {
        droppedPoints += 1;
        return null;
      }
      const created: InjectionPoint = {
        place,
        parameter,
        url,
        techniques: [],
        letters: '',
        notes: '',
        facts: new Map(),
        databases: [],
      };
      points.set(key, created);
      return created;
    },
    techniqueFor(point, type) {
      const known = point.techniques.find((candidate) => candidate.type === type);
      if (known !== undefined) {
        // A repeated type (resumed session) keeps its first title and payload.
        return null;
      }
      if (point.techniques.length >= MAX_TECHNIQUES) {
        return null;
      }
      const created: Technique = { type, title: null, payload: null };
      point.techniques.push(created);
      return created;
    },
    all: () => [...points.values()],
    dropped: () => droppedPoints,
  };
}
