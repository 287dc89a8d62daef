import { plainToInstance } from 'class-transformer';
import { validateSync, type ValidationError } from 'class-validator';
import { isJsonObject, parseExactJson } from '../http/exact-json.js';
import { normalizeIds } from '../service-api/normalize-ids.js';
import { AppointmentPromptDto, EVENT_DTOS, RecordPromptDto } from './dto/event-dtos.js';
import { shapeCheck } from './dto/shape-check.js';
import type { WebhookEndpoint } from './inbox.row.js';
import type { EventDataByName, EventName } from '../domain/service-events.js';

export const APPOINTMENT_PROMPT_EVENT = 'appointment_crm.export_prompt';
export const RECORD_PROMPT_EVENT = 'record_crm.export_prompt';

// Built at load: a payload DTO with a validation the shape check does not know stops the daemon at start.
for (const dto of [...Object.values(EVENT_DTOS), AppointmentPromptDto, RecordPromptDto]) shapeCheck(dto);

export type ParsedDelivery =
  | { kind: 'valid'; event: EventName; data: EventDataByName[EventName] }
  | { kind: 'unknown'; event: string }
  | { kind: 'invalid'; event: string | null; reason: string };

/**
 * Reads a raw delivery: JSON with exact ids, the envelope of its endpoint, and the payload's documented shape.
 * Ids may arrive as JSON numbers or strings; they leave as exact strings.
 */
export function parseDelivery(endpoint: WebhookEndpoint, raw: Buffer): ParsedDelivery {
  let json: unknown;
  try {
    json = parseExactJson(raw.toString('utf8'));
  } catch {
    return { kind: 'invalid', event: null, reason: 'body is not JSON' };
  }
  if (!isJsonObject(json)) return { kind: 'invalid', event: null, reason: 'body must be a JSON object' };
  if (endpoint === 'events') return parseEvent(json);
  return parsePrompt(endpoint, json);
}

function parseEvent(json: Record<string, unknown>): ParsedDelivery {
  const event = json.event;
  if (typeof event !== 'string' || event === '') return { kind: 'invalid', event: null, reason: 'event must be a non-empty string' };
  // Own names only: `in` would take `toString` or `constructor` (Object.prototype's) for an event.
  if (!Object.hasOwn(EVENT_DTOS, event)) return { kind: 'unknown', event };
  if (!isJsonObject(json.data)) return { kind: 'invalid', event, reason: 'data must be an object' };
  const dto = EVENT_DTOS[event as keyof typeof EVENT_DTOS];
  return validated(event as EventName, dto, json.data);
}

function parsePrompt(endpoint: 'appointment-prompt' | 'record-prompt', json: Record<string, unknown>): ParsedDelivery {
  // Accepted bare, or wrapped as {event, data} (the spec does not show the envelope of these webhooks).
  const wrapped = 'data' in json && isJsonObject(json.data) && !('yes_no' in json);
  const payload = { ...(wrapped ? (json.data as Record<string, unknown>) : json) };
  if (endpoint === 'appointment-prompt') return validated(APPOINTMENT_PROMPT_EVENT, AppointmentPromptDto, payload);
  payload.record_crm_module ??= payload.module;
  payload.record_crm_record_id ??= payload.record_id;
  delete payload.module;
  delete payload.record_id;
  return validated(RECORD_PROMPT_EVENT, RecordPromptDto, payload);
}

function validated(event: EventName, dto: new () => object, data: unknown): ParsedDelivery {
  const normalised = normalizeIds<Record<string, unknown>>(data);
  if (!shapeCheck(dto)(normalised)) {
    // class-validator has the last word, and the messages.
    const errors = validateSync(plainToInstance(dto, normalised), { forbidUnknownValues: false });
    if (errors.length > 0) return { kind: 'invalid', event, reason: describeErrors(errors) };
  }
  // The normalised plain object is what handlers get: every field the service sent, ids as strings.
  return { kind: 'valid', event, data: normalised as never };
}

function describeErrors(errors: ValidationError[], prefix = 'data.'): string {
  const messages: string[] = [];
  for (const error of errors) {
    const path = `${prefix}${error.property}`;
    if (error.constraints) messages.push(...Object.values(error.constraints).map((m) => m.replace(error.property, path)));
    if (error.children?.length) messages.push(describeErrors(error.children, `${path}.`));
  }
  return messages.join('; ').slice(0, 500);
}
