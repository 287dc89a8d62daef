import { CallBudget } from './call-budget.js';

describe(CallBudget.name, () => {
  it('takes calls while they fit, and counts calls made whose number was known only after, past the limit too', () => {
    const budget = new CallBudget(5);
    expect(budget.take(2)).toBe(true);
    expect(budget.fits(3)).toBe(true);
    expect(budget.fits(4)).toBe(false);
    expect(budget.take(4)).toBe(false);
    expect(budget.spent).toBe(2);
    // A listing that fitted at its start read a second page.
    budget.spend(4);
    expect(budget.spent).toBe(6);
    expect(budget.take()).toBe(false);
    expect(budget.fits(0)).toBe(false);
  });
});
