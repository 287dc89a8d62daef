import { comparable, lookedFor, phoneKey, usableKeys } from './match-keys.js';

describe('match keys', () => {
  it('compares phones on their last 10 digits, whatever their punctuation or country code', () => {
    expect(phoneKey('+1 (512) 555-0142')).toBe('5125550142');
    expect(phoneKey('512.555.0142')).toBe('5125550142');
    expect(phoneKey('555-0142')).toBeNull();
    expect(phoneKey(null)).toBeNull();
  });

  it('compares e-mails and job numbers without case or surrounding spaces, and refuses what cannot match', () => {
    expect(comparable('email', ' Ana@Example.com ')).toBe('ana@example.com');
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
