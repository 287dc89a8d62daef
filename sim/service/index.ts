export { ServiceSim, RECORD_MODULES } from './service-sim.js';
export type { ServiceSimOptions, ProposalExport, RecordAssociation, RecordModule, ProjectSeed, DrawingSeed, DrawingChanges } from './service-sim.js';
export { FileServer } from './file-server.js';
export { WebhookSender, signWebhook, events, appointmentPrompt, recordPrompt, RETRY_DELAYS_SECONDS } from './webhook-sender.js';
export type { DeliverOptions, DeliveryAttempt, SendResult, WebhookSenderOptions, WebhookBody, StatusChangedExtra, PromptOptions } from './webhook-sender.js';
export type * from './types.js';
