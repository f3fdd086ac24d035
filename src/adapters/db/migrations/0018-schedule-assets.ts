import type { Migration } from './index.js';

/**
 * Schedules over registered assets (issue 24): a schedule names its targets, or assets by id
 * (`asset_ids`), or every asset carrying a tag (`asset_tag`, resolved at each run). Exactly one
 * of the three is set; `targets` stays not null and is empty for an asset schedule.
 */
export const migration0018: Migration = {
  version: 18,
  name: 'schedule-assets',
  statements: [
    `alter table schedules add column asset_ids uuid[]`,
    `alter table schedules add column asset_tag text`,
  ],
};
