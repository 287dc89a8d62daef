import { ServiceSim, WebhookSender, appointmentPrompt, events, recordPrompt } from '../test/sim/service/index.js';
import { AppointmentCrmSim } from '../test/sim/appointment-crm/appointment-crm-sim.js';
import { ZohoSim } from '../test/sim/zoho/zoho-sim.js';
import { startDaemon } from '../bench/support.js';

/**
 * `npm run demo`: the built daemon against the three simulators (the service, an appointment CRM, Zoho CRM) on
 * this machine, with a mapped project of each kind and a few signed webhooks, then left running so you can look
 * around the dashboard and the API. Needs the local Postgres and Redis; uses the database `crm_sync_demo`.
 */
const ADMIN_TOKEN = 'demo-admin-token-not-secret';
const SECRETS = { events: 'demo-events', appointment: 'demo-appointment-prompt', record: 'demo-record-prompt' };
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

const service = new ServiceSim();
const appointments = new AppointmentCrmSim();
const zoho = new ZohoSim();
await Promise.all([service.start(), appointments.start(), zoho.start()]);
service.addTemplate('Standard proposal');

const daemon = await startDaemon({
  PORT: process.env.PORT ?? '3000',
  DATABASE_URL: process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/crm_sync_demo',
  REDIS_URL: process.env.REDIS_URL ?? 'redis://127.0.0.1:6379/0',
  QUEUE_PREFIX: 'crm-sync-demo',
  SERVICE_API_BASE_URL: service.apiBaseUrl,
  SERVICE_API_TOKEN: service.token,
  WEBHOOK_SECRETS_EVENTS: SECRETS.events,
  WEBHOOK_SECRETS_APPOINTMENT_PROMPT: SECRETS.appointment,
  WEBHOOK_SECRETS_RECORD_PROMPT: SECRETS.record,
  ADMIN_TOKEN,
  APPOINTMENT_CRM_BASE_URL: appointments.url,
  APPOINTMENT_CRM_API_KEY: appointments.apiKey,
  RECORD_CRM_ACCOUNTS_URL: zoho.accountsUrl,
  RECORD_CRM_API_DOMAIN: zoho.apiDomain,
  RECORD_CRM_CLIENT_ID: 'zoho-client',
  RECORD_CRM_CLIENT_SECRET: 'zoho-secret',
  RECORD_CRM_REFRESH_TOKEN: 'zoho-refresh',
  DRAWINGS_COALESCE_MS: '500',
  LOG_LEVEL: 'warn',
});
const admin = (path: string, body?: unknown) =>
  fetch(`${daemon.url}${path}`, {
    method: body === undefined ? 'GET' : 'POST',
    headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  }).then((r) => r.json() as Promise<Record<string, unknown>>);

// A project sold through the appointment CRM, and one tracked as a Zoho deal.
const kitchen = service.addProject({ name: 'Kitchen remodel, 12 Elm St' });
const kitchenDrawing = service.addDrawing(kitchen.id, { name: 'Kitchen plan' });
const appointmentId = `APT-${Date.now()}`;
appointments.addAppointment(appointmentId);
const roof = service.addProject({ name: 'Roof replacement, 4 Oak Ave' });
const roofDrawing = service.addDrawing(roof.id, { name: 'Roof plan' });
const dealId = zoho.addRecord('Deals');
await admin('/api/mappings', {
  items: [
    { crm: 'appointment', appointment_id: appointmentId, project_id: kitchen.id },
    { crm: 'record', record_crm_module: 'Deals', record_crm_record_id: dealId, project_id: roof.id },
  ],
});
await admin('/api/mappings/associate', {});

const sender = new WebhookSender();
const post = (path: string, body: object, secret: string) => sender.deliverOnce(`${daemon.url}${path}`, body, { secret });
await post('/webhooks/events', events.drawingCreated(service.drawingView(kitchenDrawing.id)), SECRETS.events);
await post('/webhooks/appointment-crm/export-prompt', appointmentPrompt({ project_id: kitchen.id, drawing_id: kitchenDrawing.id, appointment_id: appointmentId, yes_no: true }), SECRETS.appointment);
await post('/webhooks/record-crm/export-prompt', recordPrompt({ drawing_id: roofDrawing.id, record_crm_module: 'Deals', record_crm_record_id: dealId, yes_no: true }), SECRETS.record);
const proposal = service.addProposal({ project_id: roof.id, status: 'APPROVED', approved_option: { drawing_id: roofDrawing.id } });
await post('/webhooks/events', events.proposalStatusChanged(proposal), SECRETS.events);
const payment = service.addPayment(proposal.proposal_id, { paid_amount: 4250, pay_channel: 'service_payment', paid_time: new Date().toISOString(), payment_method: 'ACH', status: 'succeeded' });
await post('/webhooks/events', events.paymentReceived(proposal.proposal_id, roofDrawing.id, payment), SECRETS.events);
await sleep(3_000);

const log = (await admin('/api/sync-logs?limit=20')) as { items: Array<Record<string, string>> };
console.log('\nSync log (newest first):');
for (const e of log.items) console.log(`  #${e.id} ${e.kind.padEnd(18)} ${e.status.padEnd(10)} ${e.crm ?? ''} ${e.target ?? ''}  ${e.detail ?? e.error ?? ''}`);
const appointment = appointments.get(appointmentId)!;
console.log(`\nAppointment ${appointmentId}: status ${appointment.status}, files ${appointment.files.map((f) => `${f.category}:${f.name}`).join(', ')}`);
console.log(`Zoho deal ${dealId}: attachments ${zoho.attachmentsOf('Deals', dealId).map((a) => a.fileName).join(', ')}; notes ${zoho.notesOf('Deals', dealId).length}`);
console.log(`\nDashboard: ${daemon.url}/admin (token: ${ADMIN_TOKEN})   API docs: ${daemon.url}/docs   Ctrl-C stops the demo.`);

const stop = async () => {
  await daemon.stop();
  await Promise.all([service.stop(), appointments.stop(), zoho.stop()]);
  process.exit(0);
};
process.once('SIGINT', stop);
process.once('SIGTERM', stop);
