/**
 * A horizontal bar chart in hand-made SVG (no chart library): one bar a category, a count axis
 * with "nice" ticks (lib/chart-scale.ts). The SVG is an image with a one-sentence label; the same
 * numbers follow in a table, the chart's text alternative.
 */
import { type Bar, countAxis, linearScale } from '../lib/chart-scale.js';

const WIDTH = 380;
const LABEL_WIDTH = 90;
const RIGHT_PAD = 40;
const BAR = 20;
const GAP = 10;
const AXIS = 20;

export function BarChart(props: {
  id: string;
  title: string;
  /** The table's first column heading. */
  category: string;
  bars: readonly Bar[];
  /** A class per bar (e.g. severity colours), else the accent colour. */
  barClass?: (label: string) => string;
  empty: string;
}) {
  const { bars, id } = props;
  const titleId = `${id}-title`;
  if (bars.length === 0) {
    return (
      <figure class="chart" aria-labelledby={titleId}>
        <figcaption id={titleId}>{props.title}</figcaption>
        <p class="empty">{props.empty}</p>
      </figure>
    );
  }
  const axis = countAxis(Math.max(...bars.map((bar) => bar.value)));
  const plot = WIDTH - LABEL_WIDTH - RIGHT_PAD;
  const x = linearScale(axis.max, plot);
  const height = bars.length * (BAR + GAP) + AXIS;
  const summary = `${props.title}: ${bars.map((bar) => `${bar.label} ${bar.value}`).join(', ')}.`;
  return (
    <figure class="chart" aria-labelledby={titleId}>
      <figcaption id={titleId}>{props.title}</figcaption>
      <svg
        viewBox={`0 0 ${WIDTH} ${height}`}
        role="img"
        aria-label={summary}
        preserveAspectRatio="xMinYMin meet"
      >
        <g transform={`translate(${LABEL_WIDTH},0)`}>
          {axis.ticks.map((tick) => (
            <g key={tick} transform={`translate(${x(tick)},0)`} class="tick">
              <line y1={0} y2={height - AXIS} />
              <text y={height - AXIS + 14} text-anchor="middle">
                {tick.toLocaleString('en')}
              </text>
            </g>
          ))}
          {bars.map((bar, index) => {
            const y = index * (BAR + GAP) + GAP / 2;
            const length = Math.max(x(bar.value), 1);
            return (
              <g key={bar.label}>
                <text x={-8} y={y + BAR / 2} dy="0.35em" text-anchor="end" class="bar-label">
                  {bar.label}
                </text>
                <rect
                  class={`bar ${props.barClass?.(bar.label) ?? ''}`}
                  y={y}
                  width={length}
                  height={BAR}
                  rx={3}
                />
                <text x={length + 6} y={y + BAR / 2} dy="0.35em" class="bar-value">
                  {bar.value.toLocaleString('en')}
                </text>
              </g>
            );
          })}
        </g>
      </svg>
      <ChartTable title={props.title} category={props.category} bars={bars} />
    </figure>
  );
}

/** A chart's numbers as a table: its text alternative. */
export function ChartTable(props: { title: string; category: string; bars: readonly Bar[] }) {
  return (
    <table class="chart-table">
      <caption class="visually-hidden">{props.title} (the chart's numbers)</caption>
      <thead>
        <tr>
          <th scope="col">{props.category}</th>
          <th scope="col">Count</th>
        </tr>
      </thead>
      <tbody>
        {props.bars.map((bar) => (
          <tr key={bar.label}>
            <th scope="row">{bar.label}</th>
            <td>{bar.value.toLocaleString('en')}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
