/**
 * A column chart in hand-made SVG for a series over time (one column a day, oldest on the left),
 * with a count axis of "nice" ticks (lib/chart-scale.ts) and a label under every `labelEvery`-th
 * column. Like BarChart, the SVG is an image with a one-sentence label and the numbers follow in a
 * table, folded away here since a series has many rows.
 */
import { type Bar, countAxis, linearScale } from '../lib/chart-scale.js';
import { ChartTable } from './bar-chart.js';

const WIDTH = 380;
const HEIGHT = 160;
const AXIS_WIDTH = 34;
const LABEL_HEIGHT = 18;
const TOP_PAD = 8;
/** Room right of the newest column for the half of its label that sticks out. */
const RIGHT_PAD = 20;

export function ColumnChart(props: {
  id: string;
  title: string;
  /** The table's first column heading. */
  category: string;
  columns: readonly Bar[];
  /** Label every n-th column (from the newest, so the last is always named). */
  labelEvery?: number;
}) {
  const { columns, id } = props;
  const titleId = `${id}-title`;
  const every = Math.max(1, props.labelEvery ?? 1);
  const axis = countAxis(Math.max(0, ...columns.map((column) => column.value)));
  const plotHeight = HEIGHT - LABEL_HEIGHT - TOP_PAD;
  const y = linearScale(axis.max, plotHeight);
  const slot = (WIDTH - AXIS_WIDTH - RIGHT_PAD) / Math.max(1, columns.length);
  const width = Math.max(1, slot * 0.7);
  const total = columns.reduce((sum, column) => sum + column.value, 0);
  const busiest = columns.reduce<Bar | null>(
    (best, column) => (best === null || column.value > best.value ? column : best),
    null,
  );
  const summary =
    `${props.title}: ${total.toLocaleString('en')} in all` +
    (busiest === null || busiest.value === 0
      ? '.'
      : `, most on ${busiest.label} (${busiest.value.toLocaleString('en')}).`);
  return (
    <figure class="chart" aria-labelledby={titleId}>
      <figcaption id={titleId}>{props.title}</figcaption>
      <svg
        viewBox={`0 0 ${WIDTH} ${HEIGHT}`}
        role="img"
        aria-label={summary}
        preserveAspectRatio="xMinYMin meet"
      >
        {axis.ticks.map((tick) => (
          <g key={tick} transform={`translate(0,${TOP_PAD + plotHeight - y(tick)})`} class="tick">
            <line x1={AXIS_WIDTH} x2={WIDTH - RIGHT_PAD} />
            <text x={AXIS_WIDTH - 6} dy="0.35em" text-anchor="end">
              {tick.toLocaleString('en')}
            </text>
          </g>
        ))}
        {columns.map((column, index) => {
          const x = AXIS_WIDTH + index * slot + (slot - width) / 2;
          const height = y(column.value);
          const named = (columns.length - 1 - index) % every === 0;
          return (
            <g key={column.label}>
              <rect
                class="bar"
                x={x}
                y={TOP_PAD + plotHeight - height}
                width={width}
                height={height}
                rx={1.5}
              >
                <title>
                  {column.label}: {column.value.toLocaleString('en')}
                </title>
              </rect>
              {named ? (
                <text x={x + width / 2} y={HEIGHT - 4} text-anchor="middle" class="tick-label">
                  {column.label}
                </text>
              ) : null}
            </g>
          );
        })}
      </svg>
      <details>
        <summary>The numbers</summary>
        <ChartTable title={props.title} category={props.category} bars={columns} />
      </details>
    </figure>
  );
}
