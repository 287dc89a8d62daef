/** The service's limit on a project name (docs/service-api.md, "Project name rules"). */
export const PROJECT_NAME_MAX = 200;

const FORBIDDEN = /[:/\\]/g;
// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u001f\u007f]/g;
const graphemes = new Intl.Segmenter(undefined, { granularity: 'grapheme' });

/**
 * A project name the service accepts, unique because the CRM id is in it: `<label> (<crm id>)`, with `:` `/` `\`
 * and control characters made spaces, no leading `.`, at most 200 characters. Length is counted in UTF-16 units,
 * which is never less than a count of characters however the service counts, and the label is cut between
 * graphemes, so an emoji is never split; the id is never cut.
 */
export function projectName(label: string | null | undefined, id: string, fallbackLabel: string): string {
  const suffix = ` (${clean(id)})`;
  const room = PROJECT_NAME_MAX - suffix.length;
  let text = clean(label ?? '');
  if (text === '') text = clean(fallbackLabel);
  return `${cut(text, room)}${suffix}`.replace(/^[\s.]+/, '');
}

function clean(text: string): string {
  return text
    .replace(FORBIDDEN, ' ')
    .replace(CONTROL, ' ')
    .replace(/\s+/g, ' ')
    .trim()
    .replace(/^[\s.]+/, '');
}

function cut(text: string, room: number): string {
  if (text.length <= room) return text;
  let out = '';
  for (const { segment } of graphemes.segment(text)) {
    if (out.length + segment.length > room) break;
    out += segment;
  }
  return out.trimEnd();
}
