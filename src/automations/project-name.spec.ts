import { PROJECT_NAME_MAX, projectName } from './project-name.js';

describe('projectName', () => {
  it('puts the CRM id after the label', () => {
    expect(projectName('Jane Doe', 'APT-1001', 'Appointment')).toBe('Jane Doe (APT-1001)');
  });

  it('turns : / \\ into spaces and drops a leading dot', () => {
    expect(projectName('.hidden: a/b\\c', '7', 'Appointment')).toBe('hidden a b c (7)');
    expect(projectName('...', '7', 'Appointment')).toBe('Appointment (7)');
    expect(projectName(null, 'a:b', 'Deal')).toBe('Deal (a b)');
  });

  it('cuts a long label to 200 characters, keeping the whole id, and never splits an emoji', () => {
    const id = '4150868000005277036';
    const long = projectName('x'.repeat(300), id, 'Deal');
    expect(long).toHaveLength(PROJECT_NAME_MAX);
    expect(long.endsWith(` (${id})`)).toBe(true);
    const emoji = projectName(`${'y'.repeat(178)}👩‍👩‍👧 family`, id, 'Deal');
    expect(emoji.length).toBeLessThanOrEqual(PROJECT_NAME_MAX);
    expect(emoji).toBe(`${'y'.repeat(178)} (${id})`);
    expect(projectName('Roof 🏠', id, 'Deal')).toBe(`Roof 🏠 (${id})`);
  });

  it('strips control, format and bidi characters and normalizes to NFKC, keeping emoji sequences whole', () => {
    expect(projectName('Ana\u202Efdp.exe\u202C Ruiz', '7', 'Deal')).toBe('Ana fdp.exe Ruiz (7)');
    expect(projectName('Bo\u200BLee\u2066\u2069\uFEFF\u0007', '7', 'Deal')).toBe('Bo Lee (7)');
    expect(projectName('\u200E\u200F\u061CRoof', '7', 'Deal')).toBe('Roof (7)');
    expect(projectName('ＡＢＣ：ﬁ', '7', 'Deal')).toBe('ABC fi (7)');
    expect(projectName('Family 👩‍👩‍👧 deck', '7', 'Deal')).toBe('Family 👩\u200D👩\u200D👧 deck (7)');
    expect(projectName('x\u200Dy', '7', 'Deal')).toBe('x y (7)');
  });
});
