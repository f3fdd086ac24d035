/**
 * An engine's options as form controls, from the field descriptors of lib/option-fields.ts: one
 * labelled control per option, its description as help text, the default said, a refusal of the
 * service shown under the field it names.
 */
import type { ComponentChildren } from 'preact';
import {
  asSentence,
  type FieldValue,
  type FormValues,
  type OptionField,
  shownValue,
} from '../lib/option-fields.js';
import { Field, type FieldControl } from './ui.js';

export interface FieldProblem {
  /** The option's path (`ports`, `authentication.type`). */
  readonly path: string;
  readonly text: string;
}

export const optionInputId = (path: string) => `option-${path.replace(/\./g, '-')}`;

export function OptionFields(props: {
  fields: readonly OptionField[];
  values: FormValues;
  templateOptions: unknown;
  problem: FieldProblem | null;
  onChange: (path: string, value: FieldValue) => void;
}) {
  return (
    <>
      {props.fields.map((field) => (
        <OptionControl key={field.path} field={field} {...props} />
      ))}
    </>
  );
}

/** For legends; a label says "Required." in its help instead, so its name stays the option's. */
function Required(props: { field: OptionField }) {
  return props.field.required ? <span class="required"> (required)</span> : null;
}

/** A field's help: whether it is required, its description, and `extra` (its default). */
function helpText(field: OptionField, extra?: string): string | null {
  const texts = [field.required ? 'Required.' : null, field.help, extra]
    .filter((text) => text !== null && text !== undefined)
    .map(asSentence);
  return texts.length === 0 ? null : texts.join(' ');
}

/** The help under a control that is not in a Field (a checkbox, a group of them). */
function Help(props: { id: string; field: OptionField; extra?: string }) {
  const text = helpText(props.field, props.extra);
  return text === null ? null : (
    <span class="help" id={`${props.id}-help`}>
      {text}
    </span>
  );
}

function Problem(props: { id: string; problem: FieldProblem | null; path: string }) {
  return props.problem?.path === props.path ? (
    <span class="field-error" id={`${props.id}-error`} role="alert">
      {props.problem.text}
    </span>
  ) : null;
}

/** The default as a sentence, for the help text. */
function defaultText(field: OptionField): string | undefined {
  switch (field.kind) {
    case 'text':
    case 'number':
    case 'list':
      return field.placeholder === '' ? undefined : `Default: ${field.placeholder}.`;
    case 'multi':
      return field.defaultValue === null ? undefined : `Default: ${field.defaultValue.join(', ')}.`;
    default:
      return undefined;
  }
}

function OptionControl(props: {
  field: OptionField;
  values: FormValues;
  templateOptions: unknown;
  problem: FieldProblem | null;
  onChange: (path: string, value: FieldValue) => void;
}) {
  const { field, values, templateOptions, problem, onChange } = props;
  const id = optionInputId(field.path);
  const value = shownValue(field, values, templateOptions);
  const invalid = problem?.path === field.path;
  const describedBy = `${id}-help${invalid ? ` ${id}-error` : ''}`;
  const named = { name: field.path, 'aria-required': field.required };
  const common = {
    id,
    ...named,
    'aria-invalid': invalid,
    'aria-describedby': describedBy,
  };
  const text = typeof value === 'string' ? value : '';
  const wrap = (control: (attributes: FieldControl & typeof named) => ComponentChildren) => (
    <Field
      id={id}
      label={field.label}
      help={helpText(field, defaultText(field))}
      error={invalid ? problem.text : null}
    >
      {(attributes) => control({ ...attributes, ...named })}
    </Field>
  );

  switch (field.kind) {
    case 'group':
      return (
        <fieldset class="option-group">
          <legend>
            {field.label}
            <Required field={field} />
          </legend>
          {field.help === null ? null : <p class="help">{field.help}</p>}
          <OptionFields
            fields={field.fields}
            values={values}
            templateOptions={templateOptions}
            problem={problem}
            onChange={onChange}
          />
        </fieldset>
      );
    case 'checkbox':
      return (
        <div class="field">
          <label class="check">
            <input
              type="checkbox"
              {...common}
              checked={value === true}
              onChange={(event) => onChange(field.path, event.currentTarget.checked)}
            />
            {field.label}
          </label>
          <Help id={id} field={field} extra={`Default: ${field.defaultValue ? 'on' : 'off'}.`} />
          <Problem id={id} problem={problem} path={field.path} />
        </div>
      );
    case 'tristate':
      return wrap((attributes) => (
        <select
          {...attributes}
          value={text}
          onChange={(e) => onChange(field.path, e.currentTarget.value)}
        >
          <option value="">Tool decides</option>
          <option value="true">Yes</option>
          <option value="false">No</option>
        </select>
      ));
    case 'select':
      return wrap((attributes) => (
        <select
          {...attributes}
          value={text}
          onChange={(e) => onChange(field.path, e.currentTarget.value)}
        >
          {field.defaultChoice === null ? <option value="">(not set)</option> : null}
          {field.choices.map((choice) => (
            <option key={choice} value={choice}>
              {choice}
              {choice === field.defaultChoice ? ' (default)' : ''}
            </option>
          ))}
        </select>
      ));
    case 'number':
      return wrap((attributes) => (
        <input
          type="number"
          {...attributes}
          inputMode="numeric"
          min={field.min ?? undefined}
          max={field.max ?? undefined}
          step={field.integer ? 1 : 'any'}
          placeholder={field.placeholder}
          value={text}
          onInput={(e) => onChange(field.path, e.currentTarget.value)}
        />
      ));
    case 'text':
      return wrap((attributes) => (
        <input
          type={field.secret ? 'password' : 'text'}
          {...attributes}
          autoComplete={field.secret ? 'new-password' : 'off'}
          spellcheck={false}
          maxLength={field.maxLength ?? undefined}
          placeholder={field.placeholder}
          value={text}
          onInput={(e) => onChange(field.path, e.currentTarget.value)}
        />
      ));
    case 'list':
      return wrap((attributes) => (
        <input
          type="text"
          {...attributes}
          spellcheck={false}
          placeholder={field.placeholder === '' ? 'comma-separated' : field.placeholder}
          value={text}
          onInput={(e) => onChange(field.path, e.currentTarget.value)}
        />
      ));
    case 'json':
      return wrap((attributes) => (
        <textarea
          {...attributes}
          rows={3}
          spellcheck={false}
          value={text}
          onInput={(e) => onChange(field.path, e.currentTarget.value)}
        />
      ));
    case 'fixed':
      return wrap((attributes) => (
        <input type="text" {...attributes} readOnly value={field.value} />
      ));
    case 'multi': {
      const chosen = Array.isArray(value) ? value : [];
      return (
        <fieldset class="field multi" aria-invalid={invalid} aria-describedby={describedBy} id={id}>
          <legend>
            {field.label}
            <Required field={field} />
          </legend>
          <div class="choices">
            {field.choices.map((choice) => (
              <label class="check" key={choice}>
                <input
                  type="checkbox"
                  name={field.path}
                  value={choice}
                  checked={chosen.includes(choice)}
                  onChange={(event) =>
                    onChange(
                      field.path,
                      event.currentTarget.checked
                        ? field.choices.filter((c) => c === choice || chosen.includes(c))
                        : chosen.filter((c) => c !== choice),
                    )
                  }
                />
                {choice}
              </label>
            ))}
          </div>
          <Help
            id={id}
            field={field}
            extra={defaultText(field) ?? 'None chosen: the tool’s own set.'}
          />
          <Problem id={id} problem={problem} path={field.path} />
        </fieldset>
      );
    }
  }
}
