// Control characters are exactly what these patterns exist to catch.
/* eslint-disable no-control-regex */
const UNSAFE_IN_FILE_NAMES = /[\\/:*?"<>|\u0000-\u001f\u007f]+/g;
/** Text without control characters or double quotes (ids that end up in logs, CSV answers and headers). */
export const NO_CONTROL_OR_QUOTE = /^[^\u0000-\u001f\u007f"]+$/;
/* eslint-enable no-control-regex */

/** A file name every CRM and browser accepts: no path separators, quotes, wildcards or control characters. */
export function safeFileName(name: string, replacement = '_'): string {
  return name.replace(UNSAFE_IN_FILE_NAMES, replacement).replace(/\s+/g, ' ').trim();
}

/** `name` made safe and ending in `.pdf`; `fallback` when nothing of it is left. */
export function pdfFileName(name: string, fallback: string): string {
  const base = safeFileName(name || fallback, ' ') || fallback;
  return /\.pdf$/i.test(base) ? base : `${base}.pdf`;
}
