import { SalesforceSim } from '../../sim/salesforce/index.js';
import { SalesforceApi } from '../../src/appointment-crm/adapters/salesforce/salesforce-api.js';
import { SalesforceAppointmentCrm } from '../../src/appointment-crm/adapters/salesforce/salesforce-appointment-crm.js';
import { namesOf } from '../../src/appointment-crm/adapters/salesforce/salesforce-schema.js';
import type { Sale } from '../../src/appointment-crm/appointment-crm.js';

const APPOINTMENT = 'i360__Appointment__c';

const sale: Sale = {
  items: [
    { external_product_id: null, product_id: null, name: 'Fence', sku: 'F', unit: 'ft', quantity: 10, price: 25, cost: 15, total: 250 },
    { external_product_id: null, product_id: null, name: 'Gate', sku: 'G', unit: 'ea', quantity: 2, price: 100, cost: 60, total: 200 },
  ],
  subtotal: 450,
  discount: 0,
  discount_description: '',
  markup: 0,
  markup_description: '',
  taxes: [],
  total: 450,
  drawing_id: 'd1',
  drawing_version_id: 'v1',
};

/**
 * The sale's writes on the Salesforce simulator, the org applying one whose answer is lost (a connection cut after
 * the write, or an answer later than the time-out): the appointment still ends with exactly one sale and its items.
 */
describe('the Salesforce adapter’s sale when the org applies a write whose answer is lost', () => {
  const sim = new SalesforceSim();
  let crm: SalesforceAppointmentCrm;

  beforeAll(async () => {
    await sim.start();
    const api = new SalesforceApi(
      { loginUrl: sim.loginUrl, clientId: sim.clientId, clientSecret: sim.clientSecret, refreshToken: sim.refreshToken },
      {
        timeoutMs: 500,
        uploadTimeoutMs: 1_000,
        retry: { attempts: 4, baseDelayMs: 20, maxDelayMs: 100, maxInlineRetryAfterMs: 30_000 },
        allowCustomDomains: true,
      },
    );
    crm = new SalesforceAppointmentCrm(api, { names: namesOf('improveit360-classic', {}), soldValue: 'Sold' });
  });
  afterAll(() => sim.stop());

  const salesOf = (appointmentId: string) => sim.rows('i360__Sale__c').filter((s) => s.i360__Appointment__c === appointmentId);
  const itemsOf = (saleId: unknown) => sim.rows('i360__Sale_Item__c').filter((i) => i.i360__Sale__c === saleId);

  it.each([
    ['the sale’s create, its connection cut after the write', 1, { afterHandling: true, dropConnection: true }],
    ['the items’ create, its connection cut after the write', 2, { afterHandling: true, dropConnection: true }],
    ['the sale’s create, answered after the time-out', 1, { delayMs: 800 }],
  ])('%s: one sale with its items', async (_what, nth, fault) => {
    const appointmentId = sim.insertRow(APPOINTMENT, { i360__Result__c: null });
    // The nth composite create from now on is struck.
    let seen = 0;
    sim.instance.injectFault({ method: 'POST', path: /\/composite\/sobjects$/, times: 1, when: () => ++seen === nth, ...fault });
    await crm.putSale(appointmentId, sale);
    await new Promise((r) => setTimeout(r, 900));

    const sales = salesOf(appointmentId);
    expect(sales).toHaveLength(1);
    expect(sales[0].i360__Sold_Price__c).toBe(450);
    expect(itemsOf(sales[0].Id).map((i) => i.i360__Quantity__c)).toEqual([10, 2]);
    sim.instance.clearFaults();
  });
});
