import { comparable, isStrong, lookedFor, matchedKeys, namesAlike, phoneKey, usableKeys } from './match-keys.js';

describe('match keys', () => {
  it('compares phones on their last 10 digits, whatever their punctuation or country code', () => {
    expect(phoneKey('+1 (512) 555-0142')).toBe('5125550142');
    expect(phoneKey('512.555.0142')).toBe('5125550142');
    expect(phoneKey('555-0142')).toBeNull();
    expect(phoneKey(null)).toBeNull();
  });

  it('compares e-mails and job numbers without case or surrounding spaces, and refuses what cannot match', () => {
    expect(comparable('email', ' Ana@Acme-Roofing.com ')).toBe('ana@acme-roofing.com');
    expect(comparable('email', 'not an e-mail')).toBeNull();
    expect(comparable('job_number', ' J-100 ')).toBe('j-100');
    expect(comparable('job_number', '  ')).toBeNull();
  });

  it('uses only the keys the project has a value for, and names a look by them and their values', () => {
    const values = { job_number: 'J-1', email: null, phone: '512 555 0142' };
    expect(usableKeys(['email', 'phone', 'job_number'], values)).toEqual(['phone', 'job_number']);
    expect(lookedFor(['job_number', 'phone'], values, 'Job_Number__c')).toBe('job_number@Job_Number__c=j-1&phone=5125550142');
    expect(lookedFor(['job_number'], values)).not.toBe(lookedFor(['job_number'], { ...values, job_number: 'J-2' }));
  });
});

describe('what never matches, and what maps without review', () => {
  it('takes placeholders for nothing: repeated or running digits, "none"-like mailboxes and domains, the reserved example and test domains', () => {
    for (const phone of ['0000000000', '(111) 111-1111', '+1 999 999 9999', '123-456-7890']) expect(phoneKey(phone)).toBeNull();
    for (const email of [
      'noemail@example.com',
      'NO-EMAIL@acme.com',
      'none@gmail.com',
      'test@acme.com',
      'test1@acme.com',
      'n.a@acme.com',
      'ana@noemail.com',
      'x@y',
      'ana@example.com',
      'ana@mail.example.org',
      'ana@example.net',
      'ana@acme.example',
      'ana@acme.test',
      'ana@acme.invalid',
    ]) {
      expect(comparable('email', email)).toBeNull();
    }
    for (const job of ['0', '000', 'N/A', 'tbd']) expect(comparable('job_number', job)).toBeNull();
    expect(phoneKey('512 555 0142')).toBe('5125550142');
    expect(comparable('email', 'testa.ruiz@acme.com')).toBe('testa.ruiz@acme.com');
    expect(usableKeys(['email', 'phone'], { job_number: null, email: 'noemail@acme.com', phone: '0000000000' })).toEqual([]);
  });

  it('matches only on the primary values it is given, placeholders never', () => {
    const project = { job_number: 'J-7', email: 'ana@acme.com', phone: '0000000000' };
    const record = { job_number: ' j-7 ', emails: [null, 'ANA@acme.com'], phones: ['0000000000'], name: 'Ana Ruiz' };
    expect(matchedKeys(['job_number', 'email', 'phone'], project, record)).toEqual(['job_number', 'email']);
  });

  it('finds names alike in any order, with initials and accents, but not a household', () => {
    expect(namesAlike('Ana Ruiz', 'Ruiz, Ana M.')).toBe(true);
    expect(namesAlike('Ána-María Ruiz', 'ana maria ruiz')).toBe(true);
    expect(namesAlike('A. Ruiz', 'Ana Ruiz')).toBe(true);
    expect(namesAlike('Ana Ruiz', 'Bo Ruiz')).toBe(false);
    expect(namesAlike('Ana Ruiz', null)).toBe(false);
  });

  it('needs two name words on each side, the last names equal and the first names equal or an initial: a one-word name or an initial alone is a household', () => {
    expect(namesAlike('Ruiz', 'Bo Ruiz')).toBe(false);
    expect(namesAlike('Bo Ruiz', 'Ruiz')).toBe(false);
    expect(namesAlike('Ruiz', 'Ruiz')).toBe(false);
    expect(namesAlike('B.', 'Bo Ruiz')).toBe(false);
    expect(namesAlike('Ana Ruiz', 'Ana Ruiz Lopez')).toBe(false);
    expect(namesAlike('Ana Ruiz', 'Ana Maria Ruiz')).toBe(true);
    expect(namesAlike('Ana Ruiz', 'Ruiz Ana')).toBe(false);
    expect(namesAlike('A Ruiz', 'B Ruiz')).toBe(false);
    expect(namesAlike('Ana Ruiz', 'Anabel Ruiz')).toBe(false);
    expect(namesAlike('Ruiz, A.', 'Ana Ruiz')).toBe(true);
    expect(namesAlike('Ana Ruiz', 'R. Ana')).toBe(false);
  });

  it('maps without review on an own job number, or on e-mail and phone with alike names, never on a shared value', () => {
    expect(isStrong({ matched_on: ['job_number'], shared_on: [], names_alike: false })).toBe(true);
    expect(isStrong({ matched_on: ['job_number'], shared_on: ['job_number'], names_alike: true })).toBe(false);
    expect(isStrong({ matched_on: ['email', 'phone'], shared_on: [], names_alike: true })).toBe(true);
    expect(isStrong({ matched_on: ['email', 'phone'], shared_on: [], names_alike: false })).toBe(false);
    expect(isStrong({ matched_on: ['email', 'phone'], shared_on: ['phone'], names_alike: true })).toBe(false);
    expect(isStrong({ matched_on: ['email'], shared_on: [], names_alike: true })).toBe(false);
  });
});
