/**
 * A small SVG line chart for the scaling curves in docs/performance.md (issue 26): written by
 * the bench that measured the figures, so a chart never drifts from its table. One or more
 * series over a shared x axis, linear or logarithmic on either axis, with optional horizontal
 * target lines. No dependencies; the output is plain SVG 1.1 that GitHub renders as an image.
 * @module
 */

/** One line of the chart. */
export interface ChartSeries {
  name: string;
  /** `[x, y]` pairs; a pair whose y is not finite leaves a gap (a value not measured). */
  points: readonly (readonly [number, number])[];
  /** Drawn dashed (e.g. the reference or floor the curve is compared against). */
  dashed?: boolean;
}

/** A horizontal line marking a target. */
export interface ChartTarget {
  y: number;
  label: string;
}

/** What {@link lineChart} draws. */
export interface LineChart {
  title: string;
  xLabel: string;
  yLabel: string;
  series: readonly ChartSeries[];
  targets?: readonly ChartTarget[];
  /** Logarithmic axes for curves over sizes that grow tenfold a step. */
  xLog?: boolean;
  yLog?: boolean;
}

const WIDTH = 640;
const HEIGHT = 360;
const MARGIN = { left: 64, right: 168, top: 36, bottom: 48 };
/** Colours that stay apart for the common kinds of colour blindness (Okabe and Ito). */
const COLOURS = ["#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00", "#56B4E9", "#000000"];

/**
 * The chart as an SVG document.
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * const svg = lineChart({
 *   title: "Resume time",
 *   xLabel: "session file (MB)",
 *   yLabel: "ms",
 *   series: [{ name: "replio", points: [[1, 120], [10, 180], [100, 600]] }],
 *   targets: [{ y: 1000, label: "target 1 s" }],
 *   xLog: true,
 * });
 * assert.ok(svg.startsWith("<svg"));
 * assert.ok(svg.includes("replio") && svg.includes("target 1 s"));
 * ```
 */
export function lineChart(chart: LineChart): string {
  const finite = chart.series.flatMap((s) => s.points.filter(([x, y]) => isUsable(x, y, chart)));
  if (finite.length === 0) {
    throw new RangeError(`Cannot draw "${chart.title}": no series has a point to draw`);
  }
  const targetYs = (chart.targets ?? []).map((t) => t.y);
  const x = axis(finite.map(([value]) => value), chart.xLog ?? false, [
    MARGIN.left,
    WIDTH - MARGIN.right,
  ]);
  const y = axis([...finite.map(([, value]) => value), ...targetYs], chart.yLog ?? false, [
    HEIGHT - MARGIN.bottom,
    MARGIN.top,
  ], !(chart.yLog ?? false));
  const parts: string[] = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${WIDTH}" height="${HEIGHT}" ` +
    `viewBox="0 0 ${WIDTH} ${HEIGHT}" font-family="sans-serif" font-size="12">`,
    `<rect width="${WIDTH}" height="${HEIGHT}" fill="#ffffff"/>`,
    text(WIDTH / 2 - MARGIN.right / 2 + MARGIN.left / 2, 20, chart.title, {
      anchor: "middle",
      size: 14,
      weight: "bold",
    }),
  ];
  for (const tick of x.ticks) {
    const at = x.scale(tick);
    parts.push(line(at, MARGIN.top, at, HEIGHT - MARGIN.bottom, "#e5e5e5"));
    parts.push(text(at, HEIGHT - MARGIN.bottom + 16, formatTick(tick), { anchor: "middle" }));
  }
  for (const tick of y.ticks) {
    const at = y.scale(tick);
    parts.push(line(MARGIN.left, at, WIDTH - MARGIN.right, at, "#e5e5e5"));
    parts.push(text(MARGIN.left - 6, at + 4, formatTick(tick), { anchor: "end" }));
  }
  parts.push(
    line(MARGIN.left, HEIGHT - MARGIN.bottom, WIDTH - MARGIN.right, HEIGHT - MARGIN.bottom, "#333"),
    line(MARGIN.left, MARGIN.top, MARGIN.left, HEIGHT - MARGIN.bottom, "#333"),
    text((MARGIN.left + WIDTH - MARGIN.right) / 2, HEIGHT - 10, chart.xLabel, {
      anchor: "middle",
    }),
    `<text x="16" y="${(MARGIN.top + HEIGHT - MARGIN.bottom) / 2}" text-anchor="middle" ` +
      `transform="rotate(-90 16 ${(MARGIN.top + HEIGHT - MARGIN.bottom) / 2})">` +
      `${escapeXml(chart.yLabel)}</text>`,
  );
  for (const target of chart.targets ?? []) {
    const at = y.scale(target.y);
    parts.push(
      `<line x1="${MARGIN.left}" y1="${at}" x2="${WIDTH - MARGIN.right}" y2="${at}" ` +
        `stroke="#B00020" stroke-width="1" stroke-dasharray="2 3"/>`,
      text(WIDTH - MARGIN.right - 4, at - 4, target.label, { anchor: "end", fill: "#B00020" }),
    );
  }
  chart.series.forEach((series, index) => {
    const colour = COLOURS[index % COLOURS.length]!;
    const dash = series.dashed ? ` stroke-dasharray="6 4"` : "";
    for (const run of runs(series.points, chart)) {
      const path = run.map(([px, py]) => `${round(x.scale(px))},${round(y.scale(py))}`);
      parts.push(
        `<polyline points="${path.join(" ")}" fill="none" stroke="${colour}" ` +
          `stroke-width="2"${dash}/>`,
      );
      for (const [px, py] of run) {
        parts.push(
          `<circle cx="${round(x.scale(px))}" cy="${round(y.scale(py))}" r="3" fill="${colour}"/>`,
        );
      }
    }
    const legendY = MARGIN.top + 8 + index * 18;
    const legendX = WIDTH - MARGIN.right + 12;
    parts.push(
      `<line x1="${legendX}" y1="${legendY}" x2="${legendX + 20}" y2="${legendY}" ` +
        `stroke="${colour}" stroke-width="2"${dash}/>`,
      text(legendX + 26, legendY + 4, series.name, {}),
    );
  });
  parts.push("</svg>");
  return parts.join("\n") + "\n";
}

interface Axis {
  scale: (value: number) => number;
  ticks: number[];
}

/** Maps values onto `[from, to]` pixels; a linear axis that `fromZero` starts at 0. */
function axis(values: number[], isLog: boolean, [from, to]: [number, number], fromZero = false) {
  let low = Math.min(...values);
  let high = Math.max(...values);
  if (isLog) {
    low = 10 ** Math.floor(Math.log10(low));
    high = 10 ** Math.ceil(Math.log10(high));
    if (low === high) high = low * 10;
    const ticks: number[] = [];
    for (let tick = low; tick <= high * 1.0001; tick *= 10) ticks.push(tick);
    const span = Math.log10(high) - Math.log10(low);
    return {
      scale: (value: number) => from + (to - from) * (Math.log10(value) - Math.log10(low)) / span,
      ticks,
    } satisfies Axis;
  }
  if (fromZero) low = Math.min(0, low);
  if (low === high) high = low + 1;
  const step = niceStep((high - low) / 5);
  low = Math.floor(low / step) * step;
  high = Math.ceil(high / step) * step;
  const ticks: number[] = [];
  for (let tick = low; tick <= high + step / 1000; tick += step) ticks.push(round(tick));
  return {
    scale: (value: number) => from + (to - from) * (value - low) / (high - low),
    ticks,
  } satisfies Axis;
}

/** 1, 2 or 5 times a power of ten: ticks a reader can add up. */
function niceStep(rough: number): number {
  const power = 10 ** Math.floor(Math.log10(rough));
  const scaled = rough / power;
  return (scaled <= 1 ? 1 : scaled <= 2 ? 2 : scaled <= 5 ? 5 : 10) * power;
}

/** Consecutive drawable points: a value not measured breaks the line instead of bridging it. */
function runs(points: ChartSeries["points"], chart: LineChart): (readonly [number, number])[][] {
  const out: (readonly [number, number])[][] = [[]];
  for (const point of points) {
    if (isUsable(point[0], point[1], chart)) out[out.length - 1]!.push(point);
    else if (out[out.length - 1]!.length > 0) out.push([]);
  }
  return out.filter((run) => run.length > 0);
}

function isUsable(x: number, y: number, chart: LineChart): boolean {
  return Number.isFinite(x) && Number.isFinite(y) && (!chart.xLog || x > 0) &&
    (!chart.yLog || y > 0);
}

function formatTick(value: number): string {
  if (Math.abs(value) >= 1_000_000) return `${value / 1_000_000}M`;
  if (Math.abs(value) >= 10_000) return `${value / 1000}k`;
  return String(round(value));
}

function round(value: number): number {
  return Math.round(value * 100) / 100;
}

function line(x1: number, y1: number, x2: number, y2: number, stroke: string): string {
  return `<line x1="${round(x1)}" y1="${round(y1)}" x2="${round(x2)}" y2="${round(y2)}" ` +
    `stroke="${stroke}" stroke-width="1"/>`;
}

function text(
  x: number,
  y: number,
  content: string,
  style: { anchor?: string; size?: number; weight?: string; fill?: string },
): string {
  const attributes = [
    `x="${round(x)}"`,
    `y="${round(y)}"`,
    style.anchor ? `text-anchor="${style.anchor}"` : "",
    style.size ? `font-size="${style.size}"` : "",
    style.weight ? `font-weight="${style.weight}"` : "",
    style.fill ? `fill="${style.fill}"` : "",
  ].filter(Boolean);
  return `<text ${attributes.join(" ")}>${escapeXml(content)}</text>`;
}

function escapeXml(value: string): string {
  return value.replaceAll("&", "&amp;").replaceAll("<", "&lt;").replaceAll(">", "&gt;")
    .replaceAll('"', "&quot;");
}
