/** The service's limit on a project name (docs/service-api.md, "Project name rules"). */
export const PROJECT_NAME_MAX = 200;

const FORBIDDEN = /[:/\\]/g;
/** Control characters (Cc) and invisible format characters (Cf: bidi overrides and isolates, zero-width spaces, the BOM, tags). */
const INVISIBLE = /[\p{Cc}\p{Cf}]/gu;
/** A zero-width joiner between two pictographs joins an emoji sequence (👩‍👩‍👧): the one format character kept. */
const EMOJI_JOINER = /(?<=\p{Extended_Pictographic}(?:\u{FE0F}|\p{Emoji_Modifier})?)\u200D(?=\p{Extended_Pictographic})/gu;
const KEPT_JOINER = '\u{F0000}'; // a private-use stand-in while the rest is stripped
const graphemes = new Intl.Segmenter(undefined, { granularity: 'grapheme' });

/**
 * A project name the service accepts, unique because the CRM id is in it: `<label> (<crm id>)`, in NFKC, with `:` `/`
 * `\`, control and format characters made spaces (a bidi override or a zero-width space in a CRM name would make two
 * names look alike, or one read backwards, on every screen that shows it), no leading `.`, at most 200 characters. Length is counted in UTF-16 units,
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
    .normalize('NFKC')
    .replace(EMOJI_JOINER, KEPT_JOINER)
    .replace(INVISIBLE, ' ')
    .replaceAll(KEPT_JOINER, '\u200D')
    .replace(FORBIDDEN, ' ')
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
