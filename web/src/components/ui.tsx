/** Small pieces every page uses: headings, errors, badges, the pager, relative times. */
import type { ComponentChildren } from 'preact';
import { describeError } from '../lib/api.js';

export function PageHeader(props: { title: string; children?: ComponentChildren }) {
  return (
    <header class="page-header">
      <h1>{props.title}</h1>
      {props.children === undefined ? null : <div class="actions">{props.children}</div>}
    </header>
  );
}

/** A failed call, with the contract's code and message. */
export function ErrorNotice(props: { error: unknown }) {
  if (props.error === undefined || props.error === null) {
    return null;
  }
  return (
    <p class="notice error" role="alert">
      {describeError(props.error)}
    </p>
  );
}

export function Loading() {
  return (
    <p class="muted" aria-live="polite">
      Loading…
    </p>
  );
}

export function StatusBadge(props: { status: string }) {
  return <span class={`badge status-${props.status}`}>{props.status}</span>;
}

export function SeverityBadge(props: { severity: string }) {
  return <span class={`badge severity-${props.severity}`}>{props.severity}</span>;
}

/** Where a list stands: the API's `pagination` object, or a page of a list held in the browser. */
export interface PageSpan {
  readonly page: number;
  readonly totalPages: number;
  readonly total: number;
}

export function Pager(props: {
  pagination: PageSpan;
  noun: string;
  onPage: (page: number) => void;
}) {
  const { noun, onPage } = props;
  const { page, totalPages, total } = props.pagination;
  return (
    <nav class="pager" aria-label={`${noun} pages`}>
      <button type="button" disabled={page <= 1} onClick={() => onPage(page - 1)}>
        Previous
      </button>
      <span>
        Page {page} of {Math.max(totalPages, 1)} · {total.toLocaleString('en')} {noun}
      </span>
      <button type="button" disabled={page >= totalPages} onClick={() => onPage(page + 1)}>
        Next
      </button>
    </nav>
  );
}

const UNITS: readonly [Intl.RelativeTimeFormatUnit, number][] = [
  ['day', 86_400_000],
  ['hour', 3_600_000],
  ['minute', 60_000],
  ['second', 1000],
];
const relative = new Intl.RelativeTimeFormat('en', { numeric: 'auto' });

/** A timestamp as "3 minutes ago", with the exact time in a tooltip and for screen readers. */
export function Time(props: { at: string | null | undefined; now?: number }) {
  if (props.at === null || props.at === undefined) {
    return <span class="muted">—</span>;
  }
  const at = new Date(props.at);
  const diff = at.getTime() - (props.now ?? Date.now());
  const [unit, size] = UNITS.find(([, ms]) => Math.abs(diff) >= ms) ?? ['second', 1000];
  return (
    <time dateTime={at.toISOString()} title={at.toLocaleString()}>
      {relative.format(Math.round(diff / size), unit)}
    </time>
  );
}

/**
 * A table of rows under plain column headings, scrolling sideways on a narrow screen; the caption
 * names it for screen readers.
 */
export function DataTable(props: {
  caption: string;
  columns: readonly string[];
  class?: string;
  children: ComponentChildren;
}) {
  return (
    <div class="table-wrap">
      <table class={props.class}>
        <caption class="visually-hidden">{props.caption}</caption>
        <thead>
          <tr>
            {props.columns.map((column) => (
              <th key={column} scope="col">
                {column}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>{props.children}</tbody>
      </table>
    </div>
  );
}

/** What a form control takes from the Field around it: its id, and what describes it. */
export interface FieldControl {
  readonly id: string;
  readonly 'aria-invalid': boolean;
  readonly 'aria-describedby': string | undefined;
}

/**
 * One labelled form field: the label, the control (`children`, given the attributes that tie it
 * to the rest), its help text (`${id}-help`) and the service's refusal of it (`${id}-error`, an
 * alert); the control is described by whichever of the two is shown.
 */
export function Field(props: {
  id: string;
  label: ComponentChildren;
  help?: ComponentChildren;
  error?: string | null;
  /** Shown under the rest (a notice about what fills the control). */
  after?: ComponentChildren;
  children: (control: FieldControl) => ComponentChildren;
}) {
  const { id, help, error } = props;
  const hasHelp = help !== undefined && help !== null && help !== '';
  const hasError = error !== undefined && error !== null;
  const describedBy = [hasHelp ? `${id}-help` : null, hasError ? `${id}-error` : null]
    .filter((each) => each !== null)
    .join(' ');
  return (
    <div class="field">
      <label for={id}>{props.label}</label>
      {props.children({
        id,
        'aria-invalid': hasError,
        'aria-describedby': describedBy === '' ? undefined : describedBy,
      })}
      {hasHelp ? (
        <span class="help" id={`${id}-help`}>
          {help}
        </span>
      ) : null}
      {hasError ? (
        <span class="field-error" id={`${id}-error`} role="alert">
          {error}
        </span>
      ) : null}
      {props.after}
    </div>
  );
}
