/**
 * A PDF's text, page by page, with page numbers, read with unpdf (PDF.js built to run in any
 * JavaScript runtime, Deno included), loaded on first use.
 * @module
 */

/** The text of a PDF, and how many pages it has. */
export interface PdfText {
  pages: number;
  /** The document's own title (its Info dictionary), or "". */
  title: string;
  /** `--- page 1 of 12 ---` before each page's text. */
  text: string;
}

/**
 * Extracts the text of each page; a page without text (a scan) says so, since only text is
 * read, never images.
 */
export async function pdfToText(bytes: Uint8Array): Promise<PdfText> {
  const { extractText, getDocumentProxy, getMeta } = await import("unpdf");
  // PDF.js takes the buffer over: a copy keeps the caller's bytes intact.
  // Verbosity 0: PDF.js warns on stdout about malformed files, and the engine never prints.
  const pdf = await getDocumentProxy(new Uint8Array(bytes), { verbosity: 0 });
  try {
    const { totalPages, text } = await extractText(pdf, { mergePages: false });
    const parts = text.map((page, i) => {
      const body = page.replace(/[ \t]+$/gm, "").trim();
      return `--- page ${i + 1} of ${totalPages} ---\n` +
        (body === "" ? "(no text on this page: it may be a scanned image)" : body);
    });
    const { info } = await getMeta(pdf);
    const title = typeof info?.Title === "string" ? info.Title.replace(/\s+/g, " ").trim() : "";
    return { pages: totalPages, title, text: parts.join("\n\n") };
  } finally {
    // PDF.js frees the document's memory here (unpdf's types leave the method out).
    await (pdf as unknown as { destroy?: () => Promise<void> }).destroy?.();
  }
}
