/**
 * A small, valid PDF made in code for tests: one page per string, each line set in Helvetica,
 * with an exact cross-reference table.
 * @module
 */

/** The bytes of a PDF whose page `i` shows the lines of `pages[i]`, with an optional title. */
export function makePdf(pages: string[][], title?: string): Uint8Array<ArrayBuffer> {
  const objects: string[] = [];
  const pageIds = pages.map((_, i) => 4 + i * 2);
  objects[1] = "<< /Type /Catalog /Pages 2 0 R >>";
  objects[2] = `<< /Type /Pages /Kids [${pageIds.map((id) => `${id} 0 R`).join(" ")}] ` +
    `/Count ${pages.length} >>`;
  objects[3] = "<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>";
  pages.forEach((lines, i) => {
    const stream = ["BT", "/F1 12 Tf", "72 720 Td", "14 TL"];
    for (const line of lines) stream.push(`(${line.replace(/[()\\]/g, "\\$&")}) '`);
    stream.push("ET");
    const content = stream.join("\n");
    objects[pageIds[i]!] = "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] " +
      `/Resources << /Font << /F1 3 0 R >> >> /Contents ${pageIds[i]! + 1} 0 R >>`;
    objects[pageIds[i]! + 1] = `<< /Length ${content.length} >>\nstream\n${content}\nendstream`;
  });
  const infoId = objects.length;
  if (title !== undefined) objects[infoId] = `<< /Title (${title.replace(/[()\\]/g, "\\$&")}) >>`;
  let out = "%PDF-1.4\n";
  const offsets: number[] = [];
  for (let id = 1; id < objects.length; id++) {
    offsets[id] = out.length;
    out += `${id} 0 obj\n${objects[id]}\nendobj\n`;
  }
  const xref = out.length;
  out += `xref\n0 ${objects.length}\n0000000000 65535 f \n`;
  for (let id = 1; id < objects.length; id++) {
    out += `${String(offsets[id]).padStart(10, "0")} 00000 n \n`;
  }
  const info = title === undefined ? "" : ` /Info ${infoId} 0 R`;
  out += `trailer\n<< /Size ${objects.length} /Root 1 0 R${info} >>\nstartxref\n${xref}\n%%EOF\n`;
  return new TextEncoder().encode(out);
}
