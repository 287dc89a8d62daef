import { relationshipOf, soqlContains, soqlDateTime, soqlId, soqlName, soqlPhonePattern, soqlString } from './soql.js';

describe('SOQL literals', () => {
  it('escapes quotes, backslashes and line breaks in a string, so a value cannot end the literal', () => {
    expect(soqlString(`O'Brien`)).toBe(`'O\\'Brien'`);
    expect(soqlString(`a\\' OR Name != '`)).toBe(`'a\\\\\\' OR Name != \\''`);
    expect(soqlString('say "hi"\nthen\ttab')).toBe(`'say \\"hi\\"\\nthen\\ttab'`);
    expect(soqlString('bell\u0007')).toBe(`'bell'`);
  });

  it('takes a LIKE value literally: its own % and _ match only themselves, a backslash stays escaped', () => {
    expect(soqlContains('50%_off')).toBe(`'%50\\%\\_off%'`);
    expect(soqlContains(`x\\'y`)).toBe(`'%x\\\\\\'y%'`);
  });

  it('matches a phone by its last 10 digits in the usual groupings', () => {
    expect(soqlPhonePattern('5125550100')).toBe(`'%512%555%0100%'`);
    expect(soqlPhonePattern('555-0100')).toBe(`'%555%0100%'`);
    expect(soqlPhonePattern('+1 512 555 0100')).toBe(`'%512%555%0100%'`);
  });

  it('writes date-times in UTC, with milliseconds only when there are some', () => {
    expect(soqlDateTime(new Date('2026-11-25T09:12:44.000Z'))).toBe('2026-11-25T09:12:44Z');
    expect(soqlDateTime(new Date('2026-11-25T09:12:44.120Z'))).toBe('2026-11-25T09:12:44.120Z');
  });

  it('refuses names and ids that could carry SOQL', () => {
    expect(soqlName('i360__Prospect__r.i360__Phone_1__c')).toBe('i360__Prospect__r.i360__Phone_1__c');
    expect(() => soqlName("Name' OR Id != '")).toThrow('not an API name');
    expect(soqlId('a0A000000000001AAA')).toBe(`'a0A000000000001AAA'`);
    expect(() => soqlId("a0A' OR Id != '")).toThrow('not a Salesforce id');
  });

  it('names the relationship of custom and standard lookups', () => {
    expect(relationshipOf('i360__Sales_Rep_1__c')).toBe('i360__Sales_Rep_1__r');
    expect(relationshipOf('OwnerId')).toBe('Owner');
  });
});
