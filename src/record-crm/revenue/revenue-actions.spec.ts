import { OutboundError } from '../../http/outbound-error.js';
import { isRefusal, planStage } from './revenue-actions.service.js';
import type { DealPipeline } from '../zoho/zoho-revenue.client.js';

/** A second pipeline as crm-oas pipeline.yaml's example has them: custom open stages numbered after the closed ones. */
const installs: DealPipeline = {
  name: 'Installs',
  default: false,
  stages: [
    { value: 'Site Visit', sequence: 1, forecast: 'Open' },
    { value: 'Signed', sequence: 2, forecast: 'Open' },
    { value: 'Won Install', sequence: 3, forecast: 'Closed Won' },
    { value: 'Closed Lost', sequence: 4, forecast: 'Closed Lost' },
    { value: 'Scheduled', sequence: 5, forecast: 'Open' },
    { value: 'Installed', sequence: 6, forecast: 'Open' },
  ],
};

describe('planStage (the stage an update_deal writes, from the Deal own pipeline)', () => {
  it("won: the configured stage when the pipeline has it, else the pipeline's Closed Won stage", () => {
    expect(planStage('won', 'Signed', installs, 'Site Visit')).toEqual({ write: 'Signed' });
    expect(planStage('won', 'Closed Won', installs, 'Site Visit')).toEqual({ write: 'Won Install' });
    expect(planStage('won', 'Closed Won', installs, null)).toEqual({ write: 'Won Install' });
  });

  it('a Deal moved on keeps its stage: the same, a later one of the pipeline (open or not), any closed one', () => {
    expect(planStage('won', 'Closed Won', installs, 'Won Install').kept).toBe('Stage left at Won Install');
    expect(planStage('won', 'Closed Won', installs, 'Scheduled').kept).toBe('Stage left at Scheduled (after Won Install in pipeline Installs)');
    expect(planStage('won', 'Signed', installs, 'Closed Lost').kept).toBe('Stage left at Closed Lost (closed)');
    expect(planStage('won', 'Closed Won', installs, 'Negotiation/Review').kept).toBe(
      "Stage left at Negotiation/Review (not a stage of the Deal's pipeline Installs)",
    );
  });

  it('a stage the pipeline lacks is never written: the plan names the pipeline and the stage', () => {
    expect(planStage('lost', 'Closed-Lost to Competition', installs, 'Signed')).toEqual({
      problem: "Stage not written: Closed-Lost to Competition is not a stage of the Deal's pipeline Installs",
    });
    const noWon = { ...installs, stages: installs.stages.filter((s) => s.forecast !== 'Closed Won') };
    expect(planStage('won', 'Closed Won', noWon, 'Signed').problem).toBe(
      "Stage not written: Closed Won is not a stage of the Deal's pipeline Installs and it has no Closed Won stage",
    );
    expect(planStage('won', 'Closed Won', 'Zoho shows no Layout of Deal 1', 'Signed').problem).toBe('Stage not written: Zoho shows no Layout of Deal 1');
  });
});

describe('isRefusal (a Quote create Zoho answered without applying it: no later run waits for it to land)', () => {
  const error = (failure: ConstructorParameters<typeof OutboundError>[2], status: number | null) =>
    new OutboundError('zoho', 'POST /Quotes', failure, status, '');

  it('a refused record (data[0] with an error) and a 4xx answer are refusals', () => {
    expect(isRefusal(error('rejected', 200))).toBe(true);
    expect(isRefusal(error('rejected', 400))).toBe(true);
    expect(isRefusal(error('unauthorized', 401))).toBe(true);
    expect(isRefusal(error('rate_limited', 429))).toBe(true);
  });

  it('no answer, a time-out or a 5xx leave it open whether the create landed', () => {
    expect(isRefusal(error('timeout', null))).toBe(false);
    expect(isRefusal(error('network', null))).toBe(false);
    expect(isRefusal(error('timeout', 408))).toBe(false);
    expect(isRefusal(error('unavailable', 500))).toBe(false);
    expect(isRefusal(error('unavailable', 503))).toBe(false);
    expect(isRefusal(new Error('anything else'))).toBe(false);
  });
});
