/** Escapes text for HTML element content and double-quoted attribute values. */
export function escapeHtml(text: string): string {
  return text
    .replaceAll("&", "&amp;")
    .replaceAll("<", "&lt;")
    .replaceAll(">", "&gt;")
    .replaceAll('"', "&quot;")
    .replaceAll("'", "&#39;");
}

/** A complete HTML page with the report's inline stylesheet; nothing is fetched. */
export function htmlPage(options: { title: string; body: string; css: string }): string {
  return [
    "<!doctype html>",
    '<html lang="en">',
    "<head>",
    '<meta charset="utf-8">',
    '<meta name="viewport" content="width=device-width, initial-scale=1">',
    // No scripts, no remote resources: the page opens from file:// with no network.
    `<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; img-src data:">`,
    `<title>${escapeHtml(options.title)}</title>`,
    `<style>${options.css}</style>`,
    "</head>",
    "<body>",
    options.body,
    "</body>",
    "</html>",
    "",
  ].join("\n");
}

/** A file-name-safe slug of an id (configuration names, incident ids). */
export function slug(text: string): string {
  const cleaned = text.replace(/[^A-Za-z0-9._-]+/g, "_").replace(/^\.+/, "_");
  return cleaned === "" ? "_" : cleaned;
}
