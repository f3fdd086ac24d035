/**
 * The triage form of one issue or of several: the state, a reason, and an expiry for an accepted
 * risk. It maps what it holds with triageBody (lib/issue-filters.ts) and leaves the rules across
 * fields to the API, whose refusal it shows with the contract's code and message.
 */
import { useState } from 'preact/hooks';
import {
  TRIAGE_LABELS,
  TRIAGE_STATES,
  type TriageBody,
  type TriageDraft,
  triageBody,
} from '../lib/issue-filters.js';
import { ErrorNotice } from './ui.js';

export function TriageForm(props: {
  /** Prefixes the inputs' ids (two forms can share a page). */
  id: string;
  /** The form's accessible name, when the page holds several (one per finding). */
  label?: string;
  legend: string;
  initial: TriageDraft;
  submitLabel: string;
  disabled?: boolean;
  /** Sends the body; resolves to the sentence announced on success, or throws. */
  onSubmit: (body: TriageBody) => Promise<string>;
}) {
  const [draft, setDraft] = useState<TriageDraft>(props.initial);
  const [error, setError] = useState<unknown>(undefined);
  const [done, setDone] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const set = (changes: Partial<TriageDraft>) =>
    setDraft((current) => ({ ...current, ...changes }));

  const submit = async (event: Event) => {
    event.preventDefault();
    setDone(null);
    setError(undefined);
    const result = triageBody(draft);
    if (!result.ok) {
      setError(new Error(result.problem));
      return;
    }
    setBusy(true);
    try {
      setDone(await props.onSubmit(result.body));
    } catch (failure) {
      setError(failure);
    } finally {
      setBusy(false);
    }
  };

  const id = props.id;
  return (
    <form class="triage-form" aria-label={props.label} onSubmit={submit}>
      <fieldset>
        <legend>{props.legend}</legend>
        <div class="field">
          <label for={`${id}-state`}>Triage</label>
          <select
            id={`${id}-state`}
            value={draft.triage}
            onChange={(e) => set({ triage: e.currentTarget.value as TriageDraft['triage'] })}
          >
            {TRIAGE_STATES.map((state) => (
              <option key={state} value={state}>
                {TRIAGE_LABELS[state]}
              </option>
            ))}
          </select>
        </div>
        <div class="field">
          <label for={`${id}-reason`}>
            Reason{' '}
            <span class="help">
              {draft.triage === 'accepted_risk' ? '(required for an accepted risk)' : '(optional)'}
            </span>
          </label>
          <textarea
            id={`${id}-reason`}
            rows={2}
            maxLength={2000}
            value={draft.reason}
            onInput={(e) => set({ reason: e.currentTarget.value })}
          />
        </div>
        {draft.triage === 'accepted_risk' ? (
          <div class="field">
            <label for={`${id}-expires`}>
              Expires <span class="help">(optional; then it returns to not triaged)</span>
            </label>
            <input
              id={`${id}-expires`}
              type="datetime-local"
              value={draft.expiresAt}
              onInput={(e) => set({ expiresAt: e.currentTarget.value })}
            />
          </div>
        ) : null}
        <button type="submit" class="primary" disabled={busy || props.disabled === true}>
          {props.submitLabel}
        </button>
      </fieldset>
      <ErrorNotice error={error} />
      <p role="status" class={done === null ? 'visually-hidden' : 'notice ok'}>
        {done ?? ''}
      </p>
    </form>
  );
}
