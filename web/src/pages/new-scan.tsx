/**
 * A new scan: target, engine (GET /api/v1/engines: the available ones selectable, the others
 * shown disabled and why), priority, name, tags, an optional template (GET /api/v1/templates) and
 * the engine's options as fields built from its `optionsSchema`. Submitting POSTs the scan and
 * opens its detail page; a refusal shows the contract's code and message at the field it names.
 */
import { useEffect, useMemo, useState } from 'preact/hooks';
import { Link, useLocation } from 'wouter-preact';
import type { paths } from '../../../src/client/index.js';
import { type FieldProblem, OptionFields, optionInputId } from '../components/option-fields.js';
import { ErrorNotice, Field, Loading, PageHeader } from '../components/ui.js';
import { RampartApiError, type Schema, unwrap, useApi } from '../lib/api.js';
import { fieldOfError, optionPathOf } from '../lib/field-errors.js';
import {
  asSentence,
  type FieldValue,
  type FormValues,
  leafFields,
  optionFields,
  optionsFromForm,
  splitList,
} from '../lib/option-fields.js';
import { useResource } from '../lib/use-resource.js';

type Engine =
  paths['/api/v1/engines']['get']['responses'][200]['content']['application/json']['data']['engines'][number];
type CreateScanBody = NonNullable<
  paths['/api/v1/scans']['post']['requestBody']
>['content']['application/json'];
type Priority = Schema<'Scan'>['priority'];

const PRIORITIES: readonly Priority[] = ['critical', 'high', 'normal', 'low'];

/** A refusal, and the form field it is about (null: the form as a whole). */
interface Refusal {
  readonly error: unknown;
  readonly field: string | null;
  readonly text: string;
}

export function NewScanPage() {
  const { client } = useApi();
  const [, navigate] = useLocation();
  const engines = useResource(
    async () => (await unwrap(client.GET('/api/v1/engines'))).data.engines,
    [],
  );
  const templates = useResource(
    async () =>
      (await unwrap(client.GET('/api/v1/templates', { params: { query: { limit: 100 } } }))).data
        .templates,
    [],
  );

  const [target, setTarget] = useState('');
  const [scanType, setScanType] = useState<string | null>(null);
  const [priority, setPriority] = useState<Priority>('normal');
  const [name, setName] = useState('');
  const [tags, setTags] = useState('');
  const [templateId, setTemplateId] = useState('');
  const [values, setValues] = useState<FormValues>({});
  const [refusal, setRefusal] = useState<Refusal | null>(null);
  const [submitting, setSubmitting] = useState(false);

  const engineList = engines.data ?? [];
  const firstAvailable = engineList.find((engine) => engine.available)?.name ?? null;
  const chosenName = scanType ?? firstAvailable;
  const engine = engineList.find((candidate) => candidate.name === chosenName) ?? null;
  const template = (templates.data ?? []).find((candidate) => candidate.id === templateId) ?? null;
  const fields = useMemo(() => optionFields(engine?.optionsSchema), [engine]);
  const optionPaths = useMemo(() => leafFields(fields).map((field) => field.path), [fields]);

  const problemFor = (field: string): string | null =>
    refusal !== null && refusal.field === field ? refusal.text : null;
  const optionPath = optionPathOf(refusal?.field ?? null, optionPaths);
  const optionProblem: FieldProblem | null =
    optionPath === null || refusal === null ? null : { path: optionPath, text: refusal.text };
  const formLevel =
    refusal !== null &&
    optionPath === null &&
    !['target', 'scanType', 'priority', 'name', 'tags', 'templateId'].includes(refusal.field ?? '');

  // Keyboard users land on the field a refusal is about.
  useEffect(() => {
    if (refusal === null || refusal.field === null) {
      return;
    }
    const id = optionPath === null ? `scan-${refusal.field}` : optionInputId(optionPath);
    document.getElementById(id)?.focus();
  }, [refusal, optionPath]);

  const chooseEngine = (next: string) => {
    setScanType(next);
    setValues({});
    setRefusal(null);
    if (template !== null && template.scanType !== next) {
      setTemplateId('');
    }
  };
  const chooseTemplate = (id: string) => {
    setTemplateId(id);
    setValues({});
    const chosen = (templates.data ?? []).find((candidate) => candidate.id === id);
    if (chosen !== undefined) {
      setScanType(chosen.scanType);
      if (chosen.priority !== null && PRIORITIES.includes(chosen.priority as Priority)) {
        setPriority(chosen.priority as Priority);
      }
    }
  };
  const change = (path: string, value: FieldValue) => {
    setValues((current) => ({ ...current, [path]: value }));
  };

  const submit = async (event: Event) => {
    event.preventDefault();
    if (engine === null || submitting) {
      return;
    }
    setSubmitting(true);
    setRefusal(null);
    const tagList = splitList(tags);
    // The body's type is one variant per engine, each with that engine's options (a union that
    // cannot be built from a schema read at run time without a cast, as in the CLI); the options
    // come from the chosen engine's own schema, and the service checks them again.
    const body = {
      target: target.trim(),
      scanType: engine.name,
      priority,
      options: optionsFromForm(fields, values),
      ...(name.trim() === '' ? {} : { name: name.trim() }),
      ...(tagList.length === 0 ? {} : { tags: tagList }),
      ...(templateId === '' ? {} : { templateId }),
    } as CreateScanBody;
    try {
      const created = await unwrap(client.POST('/api/v1/scans', { body: body as never }));
      navigate(`/scans/${created.data.id}`);
    } catch (error) {
      const text =
        error instanceof RampartApiError
          ? `${error.code}: ${error.message}`
          : error instanceof Error
            ? error.message
            : String(error);
      const field =
        error instanceof RampartApiError ? fieldOfError(error.code, error.message) : null;
      setRefusal({ error, field, text });
      setSubmitting(false);
    }
  };

  return (
    <section>
      <PageHeader title="New scan">
        <Link href="/scans">Back to scans</Link>
      </PageHeader>
      <ErrorNotice error={engines.error} />
      {engines.data === undefined ? (
        engines.error === undefined ? (
          <Loading />
        ) : null
      ) : (
        <form class="new-scan" onSubmit={submit} noValidate aria-label="New scan">
          {formLevel ? <ErrorNotice error={refusal.error} /> : null}
          <Field
            id="scan-target"
            label="Target"
            help={`Required. ${
              engine === null
                ? 'URL, host, domain, IP or CIDR.'
                : `${engine.name} scans: ${engine.targetTypes.join(', ')}.`
            }`}
            error={problemFor('target')}
          >
            {(control) => (
              <input
                {...control}
                name="target"
                type="text"
                required
                spellcheck={false}
                autoComplete="off"
                value={target}
                onInput={(e) => setTarget(e.currentTarget.value)}
              />
            )}
          </Field>

          <Field
            id="scan-scanType"
            label="Engine"
            help={engineHelp(engine)}
            error={problemFor('scanType')}
          >
            {(control) => (
              <select
                {...control}
                name="scanType"
                value={chosenName ?? ''}
                onChange={(e) => chooseEngine(e.currentTarget.value)}
              >
                {engineList.map((candidate) => (
                  <option
                    key={candidate.name}
                    value={candidate.name}
                    disabled={!candidate.available}
                  >
                    {candidate.name} — {candidate.targetTypes.join(', ')}
                    {candidate.available ? '' : ' (unavailable)'}
                  </option>
                ))}
              </select>
            )}
          </Field>
          <UnavailableEngines engines={engineList} />

          <Field
            id="scan-templateId"
            label="Template"
            help="Optional. The template's options fill the fields below; what you change replaces them."
            error={problemFor('templateId')}
            after={<ErrorNotice error={templates.error} />}
          >
            {(control) => (
              <select
                {...control}
                name="templateId"
                value={templateId}
                onChange={(e) => chooseTemplate(e.currentTarget.value)}
              >
                <option value="">No template</option>
                {(templates.data ?? []).map((candidate) => (
                  <option key={candidate.id} value={candidate.id}>
                    {candidate.name} ({candidate.scanType})
                  </option>
                ))}
              </select>
            )}
          </Field>

          <Field id="scan-priority" label="Priority" error={problemFor('priority')}>
            {(control) => (
              <select
                {...control}
                name="priority"
                value={priority}
                onChange={(e) => setPriority(e.currentTarget.value as Priority)}
              >
                {PRIORITIES.map((choice) => (
                  <option key={choice} value={choice}>
                    {choice}
                  </option>
                ))}
              </select>
            )}
          </Field>

          <Field id="scan-name" label="Name" error={problemFor('name')}>
            {(control) => (
              <input
                {...control}
                name="name"
                type="text"
                maxLength={255}
                value={name}
                placeholder={engine === null ? '' : `${engine.name} ${target.trim() || '<target>'}`}
                onInput={(e) => setName(e.currentTarget.value)}
              />
            )}
          </Field>

          <Field id="scan-tags" label="Tags" error={problemFor('tags')}>
            {(control) => (
              <input
                {...control}
                name="tags"
                type="text"
                value={tags}
                placeholder="comma-separated"
                onInput={(e) => setTags(e.currentTarget.value)}
              />
            )}
          </Field>

          {engine === null ? (
            <p class="notice error" role="alert">
              No engine can run a scan now: no live worker runs any.
            </p>
          ) : (
            <fieldset class="options">
              <legend>{engine.name} options</legend>
              {fields.length === 0 ? <p class="muted">This engine takes no options.</p> : null}
              <OptionFields
                fields={fields}
                values={values}
                templateOptions={template?.options ?? {}}
                problem={optionProblem}
                onChange={change}
              />
            </fieldset>
          )}

          <div class="actions">
            <button type="submit" class="primary" disabled={engine === null || submitting}>
              {submitting ? 'Starting…' : 'Start scan'}
            </button>
          </div>
        </form>
      )}
    </section>
  );
}

/** What the engine select's help says of the chosen engine (null: none chosen). */
function engineHelp(engine: Engine | null): string | null {
  if (engine === null) {
    return null;
  }
  return [
    asSentence(engine.description),
    `Targets: ${engine.targetTypes.join(', ')}.`,
    engine.version === null ? null : `Version ${engine.version}.`,
    engine.sandboxed ? 'Runs in the scanner sandbox.' : null,
  ]
    .filter((fact) => fact !== null)
    .join(' ');
}

function UnavailableEngines(props: { engines: readonly Engine[] }) {
  const unavailable = props.engines.filter((engine) => !engine.available);
  if (unavailable.length === 0) {
    return null;
  }
  // The service's reason, one line for the engines that share it.
  const byReason = new Map<string, string[]>();
  for (const engine of unavailable) {
    const reason = engine.unavailableReason ?? 'unavailable';
    byReason.set(reason, [...(byReason.get(reason) ?? []), engine.name]);
  }
  return (
    <div class="muted small" data-testid="unavailable-engines">
      {[...byReason].map(([reason, names]) => (
        <p key={reason}>
          Not available now: {names.join(', ')} ({reason}).
        </p>
      ))}
    </div>
  );
}
