/** What an alert is about; one throttle per kind. `test` is the console's test button (never throttled). */
export const ALERT_KINDS = ['action_failed', 'record_crm_token_refused', 'webhooks_unavailable', 'revenue_drift', 'test'] as const;
export type AlertKind = (typeof ALERT_KINDS)[number];

export interface AlertEvent {
  /** A sync log id the alert is about (listed in the message's `entries`). */
  entryId?: string;
  /** A short reason (the latest event's is quoted in the message); never a secret. */
  detail?: string;
}

/**
 * Where code that notices trouble reports it. `notify` returns at once and never throws: the alert is recorded and
 * sent in the background, so an alert (or its failure) never fails or delays the work that noticed the trouble.
 * Provided by AlertsModule under ALERT_SINK; its users import that module (which imports none of theirs).
 */
export interface AlertSink {
  notify(kind: Exclude<AlertKind, 'test'>, event?: AlertEvent): void;
}

export const ALERT_SINK = Symbol('ALERT_SINK');
