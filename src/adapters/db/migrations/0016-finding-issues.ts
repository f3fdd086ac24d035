import type { Migration } from './index.js';

/**
 * Which issue each finding is, and its baseline state (issue 23): one row per finding of a scan
 * that feeds issues, written by the issue upsert in the transaction that stores the scan's end
 * (adapters/db/issues.repository.ts). `baseline_state` is the finding against its issue as the
 * issue stood before that scan (`new`, `unchanged`, `updated`: domain/issues/issue.ts,
 * `baselineStateOf`); the triage is not copied here, reads join the issue for it, so a finding
 * shows its issue's triage as it is now.
 *
 * A table of its own rather than two columns on `findings`: the upsert runs after the findings
 * are inserted, and an UPDATE of each just-inserted finding would write a new version of every
 * (wide) finding row and of its three indexes; an insert of these narrow rows writes one index.
 * Reads take a page of findings first and join this table on its primary key.
 *
 * `issue_id` has no foreign key on purpose: its check would take a FOR KEY SHARE lock on every
 * issue a scan saw, and two ends of one target lock those issues FOR UPDATE in id order (the
 * upsert); issues are never deleted.
 */
export const migration0016: Migration = {
  version: 16,
  name: 'finding-issues',
  statements: [
    `create table finding_issues (
      finding_id uuid primary key references findings (id) on delete cascade,
      issue_id uuid not null,
      baseline_state text not null check (baseline_state in ('new', 'unchanged', 'updated'))
    )`,
  ],
};
