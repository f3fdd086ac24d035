/**
 * Scan priorities and their queue order: critical, high, normal, low; first in, first out within
 * one priority (the queue sorts by rank, then by insertion sequence).
 */
export const PRIORITIES = ['critical', 'high', 'normal', 'low'] as const;
export type Priority = (typeof PRIORITIES)[number];

export const DEFAULT_PRIORITY: Priority = 'normal';

export function isPriority(value: unknown): value is Priority {
  return typeof value === 'string' && (PRIORITIES as readonly string[]).includes(value);
}

/** 0 for critical … 3 for low: the first sort key of the queue. */
export function priorityRank(priority: Priority): number {
  return PRIORITIES.indexOf(priority);
}
