import { comesBefore } from './revenue-actions.service.js';

const stages = ['Qualification', 'Negotiation/Review', 'Closed Won', 'Installed', 'Closed Lost'].map((value, i) => ({ value, sequence: i + 1 }));

describe('comesBefore (whether an update_deal writes the stage)', () => {
  it('moves an empty or earlier stage, never the same or a later one, nor one the pick list does not know', () => {
    expect(comesBefore(null, 'Closed Won', stages)).toBe(true);
    expect(comesBefore('Negotiation/Review', 'Closed Won', stages)).toBe(true);
    expect(comesBefore('Closed Won', 'Closed Won', stages)).toBe(false);
    expect(comesBefore('Installed', 'Closed Won', stages)).toBe(false);
    expect(comesBefore('Some other pipeline', 'Closed Won', stages)).toBe(false);
    expect(comesBefore('Closed Won', 'Closed Lost', stages)).toBe(true);
  });

  it('without the target in the pick list, moves any stage but a closed one', () => {
    expect(comesBefore('Negotiation/Review', 'Closed Won', [])).toBe(true);
    expect(comesBefore('Closed Lost', 'Closed Won', [])).toBe(false);
    expect(comesBefore('Closed-Lost to Competition', 'Won', [])).toBe(false);
  });
});
