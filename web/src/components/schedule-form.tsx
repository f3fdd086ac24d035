/**
 * The form that creates or edits a schedule: a name, what it scans (targets, chosen assets, or
 * every asset with a tag), the scan (an engine and/or a template), and the recurrence (a cron
 * expression with its time zone, or an interval). The API validates it all (the cron expression
 * too); its refusal is shown with the contract's code and message.
 */
import { useState } from 'preact/hooks';
import { unwrap, useApi } from '../lib/api.js';
import { type ScheduleBody, type ScheduleDraft, scheduleBody } from '../lib/schedule-form.js';
import { useResource } from '../lib/use-resource.js';
import { ErrorNotice } from './ui.js';

/** What the form offers: engines, templates and assets (the first 100 of each). */
function useChoices() {
  const { client } = useApi();
  return useResource(async () => {
    const [engines, templates, assets] = await Promise.all([
      unwrap(client.GET('/api/v1/engines')),
      unwrap(client.GET('/api/v1/templates', { params: { query: { limit: 100 } } })),
      unwrap(client.GET('/api/v1/assets', { params: { query: { limit: 100 } } })),
    ]);
    return {
      engines: engines.data.engines.map((engine) => engine.name),
      templates: templates.data.templates.map((t) => ({ id: t.id, name: t.name })),
      assets: assets.data.assets.map((a) => ({ id: a.id, name: a.name, value: a.value })),
    };
  }, []);
}

export function ScheduleForm(props: {
  id: string;
  legend: string;
  initial: ScheduleDraft;
  submitLabel: string;
  /** Sends the body; resolves to the sentence announced on success, or throws. */
  onSubmit: (body: ScheduleBody) => Promise<string>;
}) {
  const choices = useChoices();
  const [draft, setDraft] = useState<ScheduleDraft>(props.initial);
  const [error, setError] = useState<unknown>(undefined);
  const [done, setDone] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const set = (changes: Partial<ScheduleDraft>) =>
    setDraft((current) => ({ ...current, ...changes }));
  const id = (name: string) => `${props.id}-${name}`;

  const submit = async (event: Event) => {
    event.preventDefault();
    setBusy(true);
    setError(undefined);
    setDone(null);
    try {
      setDone(await props.onSubmit(scheduleBody(draft)));
    } catch (failure) {
      setError(failure);
    } finally {
      setBusy(false);
    }
  };
  const options = choices.data;

  return (
    <form onSubmit={submit} aria-label={props.legend}>
      <fieldset>
        <legend>{props.legend}</legend>
        <div class="field">
          <label for={id('name')}>Name</label>
          <input
            id={id('name')}
            required
            value={draft.name}
            onInput={(e) => set({ name: e.currentTarget.value })}
          />
        </div>
        <fieldset>
          <legend>Scan what</legend>
          {(
            [
              ['targets', 'Targets'],
              ['assets', 'Chosen assets'],
              ['tag', 'Every asset with a tag'],
            ] as const
          ).map(([value, label]) => (
            <label key={value} class="check">
              <input
                type="radio"
                name={id('source')}
                checked={draft.source === value}
                onChange={() => set({ source: value })}
              />
              {label}
            </label>
          ))}
          {draft.source === 'targets' ? (
            <div class="field">
              <label for={id('targets')}>
                Targets <span class="help">(one a line)</span>
              </label>
              <textarea
                id={id('targets')}
                rows={3}
                value={draft.targets}
                onInput={(e) => set({ targets: e.currentTarget.value })}
              />
            </div>
          ) : null}
          {draft.source === 'assets' ? (
            <fieldset class="field">
              <legend>Assets</legend>
              {options === undefined || options.assets.length === 0 ? (
                <p class="muted small">No assets yet: register one on the Assets page.</p>
              ) : (
                options.assets.map((asset) => (
                  <label key={asset.id} class="check">
                    <input
                      type="checkbox"
                      checked={draft.assetIds.includes(asset.id)}
                      onChange={(e) =>
                        set({
                          assetIds: e.currentTarget.checked
                            ? [...draft.assetIds, asset.id]
                            : draft.assetIds.filter((other) => other !== asset.id),
                        })
                      }
                    />
                    {asset.name} <span class="muted small">{asset.value}</span>
                  </label>
                ))
              )}
            </fieldset>
          ) : null}
          {draft.source === 'tag' ? (
            <div class="field">
              <label for={id('tag')}>Asset tag</label>
              <input
                id={id('tag')}
                value={draft.assetTag}
                onInput={(e) => set({ assetTag: e.currentTarget.value })}
              />
            </div>
          ) : null}
        </fieldset>
        <div class="field">
          <label for={id('engine')}>
            Engine <span class="help">(none: the template's)</span>
          </label>
          <select
            id={id('engine')}
            value={draft.scanType}
            onChange={(e) => set({ scanType: e.currentTarget.value })}
          >
            <option value="">from the template</option>
            {(options?.engines ?? [draft.scanType].filter((name) => name !== '')).map((name) => (
              <option key={name} value={name}>
                {name}
              </option>
            ))}
          </select>
        </div>
        <div class="field">
          <label for={id('template')}>Template</label>
          <select
            id={id('template')}
            value={draft.templateId}
            onChange={(e) => set({ templateId: e.currentTarget.value })}
          >
            <option value="">none</option>
            {(options?.templates ?? []).map((template) => (
              <option key={template.id} value={template.id}>
                {template.name}
              </option>
            ))}
          </select>
        </div>
        <fieldset>
          <legend>When</legend>
          <label class="check">
            <input
              type="radio"
              name={id('recurrence')}
              checked={draft.recurrence === 'cron'}
              onChange={() => set({ recurrence: 'cron' })}
            />
            Cron expression
          </label>
          <label class="check">
            <input
              type="radio"
              name={id('recurrence')}
              checked={draft.recurrence === 'interval'}
              onChange={() => set({ recurrence: 'interval' })}
            />
            Every so many minutes
          </label>
          {draft.recurrence === 'cron' ? (
            <>
              <div class="field">
                <label for={id('cron')}>
                  Cron <span class="help">(minute hour day-of-month month day-of-week)</span>
                </label>
                <input
                  id={id('cron')}
                  value={draft.cron}
                  spellcheck={false}
                  onInput={(e) => set({ cron: e.currentTarget.value })}
                />
              </div>
              <div class="field">
                <label for={id('zone')}>
                  Time zone <span class="help">(IANA, e.g. Europe/Paris)</span>
                </label>
                <input
                  id={id('zone')}
                  value={draft.timeZone}
                  onInput={(e) => set({ timeZone: e.currentTarget.value })}
                />
              </div>
            </>
          ) : (
            <div class="field">
              <label for={id('interval')}>Interval in minutes</label>
              <input
                id={id('interval')}
                inputMode="numeric"
                value={draft.intervalMinutes}
                onInput={(e) => set({ intervalMinutes: e.currentTarget.value })}
              />
            </div>
          )}
          <div class="field">
            <label for={id('missed')}>Runs missed while no scheduler ran</label>
            <select
              id={id('missed')}
              value={draft.missedRunPolicy}
              onChange={(e) =>
                set({ missedRunPolicy: e.currentTarget.value as ScheduleDraft['missedRunPolicy'] })
              }
            >
              <option value="skip">skip them</option>
              <option value="run_once">run the latest once</option>
            </select>
          </div>
        </fieldset>
        <button type="submit" class="primary" disabled={busy}>
          {props.submitLabel}
        </button>
      </fieldset>
      <ErrorNotice error={choices.error} />
      <ErrorNotice error={error} />
      <p role="status" class={done === null ? 'visually-hidden' : 'notice ok'}>
        {done ?? ''}
      </p>
    </form>
  );
}
