import assert from "node:assert/strict";
import { lineChart } from "../bench/svg_line_chart.ts";

const polylines = (svg: string) =>
  [...svg.matchAll(/<polyline points="([^"]+)"/g)].map((m) => m[1]!.split(" ").length);

Deno.test("lineChart draws each series with its legend, and a target line", () => {
  const svg = lineChart({
    title: "Resume <100 MB> & more",
    xLabel: "MB",
    yLabel: "ms",
    series: [
      { name: "replio", points: [[1, 100], [10, 200], [100, 900]] },
      { name: "floor", points: [[1, 90], [10, 95], [100, 99]], dashed: true },
    ],
    targets: [{ y: 1000, label: "target 1 s" }],
    xLog: true,
  });
  assert.ok(svg.startsWith('<svg xmlns="http://www.w3.org/2000/svg"'));
  assert.ok(svg.trimEnd().endsWith("</svg>"));
  assert.deepEqual(polylines(svg), [3, 3]);
  assert.ok(svg.includes(">replio</text>") && svg.includes(">floor</text>"));
  assert.ok(svg.includes(">target 1 s</text>"));
  // The title is escaped, so the document stays well-formed.
  assert.ok(svg.includes("Resume &lt;100 MB&gt; &amp; more"));
  // A logarithmic x axis has a tick at each power of ten the values span.
  for (const tick of [">1<", ">10<", ">100<"]) assert.ok(svg.includes(tick), tick);
});

Deno.test("lineChart leaves a gap where a value was not measured", () => {
  const svg = lineChart({
    title: "t",
    xLabel: "x",
    yLabel: "y",
    series: [{ name: "s", points: [[1, 1], [2, 2], [3, NaN], [4, 4], [5, 5]] }],
  });
  assert.deepEqual(polylines(svg), [2, 2]);
});

Deno.test("lineChart refuses a chart with nothing to draw, saying so", () => {
  assert.throws(
    () => lineChart({ title: "Empty", xLabel: "x", yLabel: "y", series: [] }),
    new RangeError(`Cannot draw "Empty": no series has a point to draw`),
  );
});
