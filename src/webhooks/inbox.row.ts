export const WEBHOOK_ENDPOINTS = ['events', 'appointment-prompt', 'record-prompt'] as const;
export type WebhookEndpoint = (typeof WEBHOOK_ENDPOINTS)[number];

/** `received`: stored, not yet routed; `routed`: turned into sync actions; `ignored`: unknown event. */
export type InboxStatus = 'received' | 'routed' | 'ignored' | 'failed';

/** A webhook delivery exactly as it arrived, written before the service gets its 200. */
export interface InboxDelivery {
  id: string;
  endpoint: WebhookEndpoint;
  event: string | null;

  /** The raw bytes, so a later reading never depends on a re-serialisation. */
  body: Buffer;

  /** sha256 of endpoint and body: equal re-deliveries share it. */
  bodyHash: Buffer;
  status: InboxStatus;
  duplicates: number;
  attempts: number;
  error: string | null;
  receivedAt: Date;
  routedAt: Date | null;

  /** The project the delivery concerns, written when it is routed (null before, or when it names none). */
  projectId: string | null;

  /** How many times an admin replayed it (`POST /api/deliveries/:id/replay`); part of each replay's dedupe keys. */
  replays: number;

  /** When the relay put the delivery's route job on the queue; null while it waits for the relay. */
  enqueuedAt: Date | null;
}
