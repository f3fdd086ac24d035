/**
 * The webhook form, for creating a webhook and for editing one: name, HTTPS URL, the events as
 * checkboxes, and the optional filters that gate scan.completed deliveries.
 */
import { useId, useState } from 'preact/hooks';
import {
  SEVERITIES,
  WEBHOOK_EVENTS,
  type WebhookFormValues,
  webhookFormProblem,
} from '../lib/webhook-form.js';
import { CheckboxGroup } from './checkbox-group.js';
import { ErrorNotice } from './ui.js';

export function WebhookForm(props: {
  initial: WebhookFormValues;
  submitLabel: string;
  /** Sends the values; a rejection is shown under the form. */
  onSubmit: (values: WebhookFormValues) => Promise<void>;
  onCancel?: () => void;
}) {
  const id = useId();
  const [values, setValues] = useState(props.initial);
  const [problem, setProblem] = useState<string | null>(null);
  const [error, setError] = useState<unknown>(undefined);
  const [busy, setBusy] = useState(false);
  const set = (changes: Partial<WebhookFormValues>) => setValues({ ...values, ...changes });

  const submit = async (event: Event) => {
    event.preventDefault();
    const found = webhookFormProblem(values);
    setProblem(found);
    setError(undefined);
    if (found !== null) {
      return;
    }
    setBusy(true);
    try {
      await props.onSubmit(values);
    } catch (failure) {
      setError(failure);
    } finally {
      setBusy(false);
    }
  };

  return (
    <form class="webhook-form" onSubmit={submit} noValidate>
      <div class="field">
        <label for={`${id}-name`}>Name</label>
        <input
          id={`${id}-name`}
          value={values.name}
          maxLength={255}
          required
          onInput={(e) => set({ name: e.currentTarget.value })}
        />
      </div>
      <div class="field">
        <label for={`${id}-url`}>URL</label>
        <input
          id={`${id}-url`}
          type="url"
          value={values.url}
          maxLength={2048}
          placeholder="https://hooks.example.com/rampart"
          aria-describedby={`${id}-url-help`}
          required
          onInput={(e) => set({ url: e.currentTarget.value })}
        />
        <span id={`${id}-url-help`} class="help">
          HTTPS only. Every delivery is signed with the webhook's secret (X-Webhook-Signature).
        </span>
      </div>
      <fieldset>
        <legend>Events</legend>
        <CheckboxGroup
          options={WEBHOOK_EVENTS}
          checked={values.events}
          onChange={(events) => set({ events })}
        />
      </fieldset>
      <fieldset>
        <legend>Filters for scan.completed</legend>
        <label class="check">
          <input
            type="checkbox"
            checked={values.filtered}
            onChange={(e) => set({ filtered: e.currentTarget.checked })}
          />
          Send scan.completed only when the scan found untriaged issues
        </label>
        {values.filtered ? (
          <div class="filters">
            <label>
              At or above{' '}
              <select
                value={values.minSeverity}
                onChange={(e) =>
                  set({
                    minSeverity:
                      SEVERITIES.find((s) => s === e.currentTarget.value) ?? values.minSeverity,
                  })
                }
              >
                {SEVERITIES.map((severity) => (
                  <option key={severity} value={severity}>
                    {severity}
                  </option>
                ))}
              </select>
            </label>
            <label class="check">
              <input
                type="checkbox"
                checked={values.onlyNew}
                onChange={(e) => set({ onlyNew: e.currentTarget.checked })}
              />
              Only new or reopened issues
            </label>
          </div>
        ) : null}
      </fieldset>
      {problem === null ? null : (
        <p class="notice error" role="alert">
          {problem}
        </p>
      )}
      <ErrorNotice error={error} />
      <div class="actions">
        <button type="submit" class="primary" disabled={busy}>
          {props.submitLabel}
        </button>
        {props.onCancel === undefined ? null : (
          <button type="button" onClick={props.onCancel}>
            Cancel
          </button>
        )}
      </div>
    </form>
  );
}
