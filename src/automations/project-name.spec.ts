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
});
