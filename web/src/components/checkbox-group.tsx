/** A group of checkboxes over a known list: what is ticked, kept in the list's order. */
import { toggleIn } from '../lib/checked-set.js';

export function CheckboxGroup<T extends string>(props: {
  options: readonly T[];
  checked: readonly T[];
  onChange: (checked: T[]) => void;
}) {
  const { options, checked, onChange } = props;
  return (
    <div class="checks">
      {options.map((option) => (
        <label class="check" key={option}>
          <input
            type="checkbox"
            checked={checked.includes(option)}
            onChange={(e) => onChange(toggleIn(options, checked, option, e.currentTarget.checked))}
          />
          {option}
        </label>
      ))}
    </div>
  );
}
