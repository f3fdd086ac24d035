import { describe, expect, it } from 'vitest';
import { toggleIn } from './checked-set.js';
import { WEBHOOK_EVENTS } from './webhook-form.js';

describe('toggleIn', () => {
  it('keeps a known order when toggling', () => {
    expect(toggleIn(['a', 'b', 'c'], ['c'], 'a', true)).toEqual(['a', 'c']);
    expect(toggleIn(['a', 'b', 'c'], ['a', 'c'], 'c', false)).toEqual(['a']);
  });

  it('keeps events in the API order whatever order they are ticked in', () => {
    const events = toggleIn(
      WEBHOOK_EVENTS,
      toggleIn(WEBHOOK_EVENTS, [], 'scan.cancelled', true),
      'scan.started',
      true,
    );
    expect(events).toEqual(['scan.started', 'scan.cancelled']);
    expect(toggleIn(WEBHOOK_EVENTS, events, 'scan.started', false)).toEqual(['scan.cancelled']);
  });
});
