/**
 * Names an HTML page that came back where a model server's JSON or event stream belongs: a
 * proxy, captive portal or login page answers 200 with HTML, and "not valid JSON" would hide that.
 * @module
 */

/** Title characters kept: enough to recognise a login or proxy page. */
const MAX_TITLE_CHARS = 80;

/**
 * Describes `body` when it is an HTML page (by `contentType` or its first characters), else null.
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * assert.equal(
 *   describeHtml("<html><title>Sign in</title></html>", "text/html"),
 *   'an HTML page titled "Sign in"',
 * );
 * assert.equal(describeHtml('{"data":[]}', "application/json"), null);
 * ```
 */
export function describeHtml(body: string, contentType: string | null): string | null {
  const looksHtml = /^\s*<(!doctype|html|head|body|\?xml)/i.test(body);
  if (!looksHtml && !/\bhtml\b/i.test(contentType ?? "")) return null;
  const title = /<title[^>]*>([^<]*)<\/title>/i.exec(body)?.[1]?.replace(/\s+/g, " ").trim();
  if (!title) return "an HTML page";
  const cut = title.length > MAX_TITLE_CHARS ? `${title.slice(0, MAX_TITLE_CHARS)}…` : title;
  return `an HTML page titled "${cut}"`;
}

/** The fix for {@link describeHtml}'s case. */
export const HTML_FIX = "a proxy or login page answered instead of the model server: " +
  "check base_url, your proxy settings (HTTPS_PROXY) and that you are logged in to the network";
