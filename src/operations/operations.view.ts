import { ApiProperty } from '@nestjs/swagger';
import { MappingView } from '../mappings/mapping.view.js';
import { SyncLogEntryView } from './sync-log.view.js';
import { WEBHOOK_ENDPOINTS } from '../webhooks/inbox.row.js';
import { DELIVERY_STATUSES } from './operations.dto.js';
import type { DeliveryRow } from '../webhooks/inbox.repository.js';

const iso = (date: Date | null): string | null => (date ? new Date(date).toISOString() : null);

/** `GET /api/deliveries/filters`: the values the inbox's filters offer, so that a new endpoint or status needs no console edit. */
export class DeliveryFilterChoicesView {
  @ApiProperty({ enum: WEBHOOK_ENDPOINTS, enumName: 'WebhookEndpoint', isArray: true }) endpoints: string[];
  @ApiProperty({ enum: DELIVERY_STATUSES, enumName: 'DeliveryStatus', isArray: true }) statuses: string[];
}

/** A stored webhook delivery as the operations API lists it. */
export class DeliveryView {
  @ApiProperty({ example: '42' }) id: string;
  @ApiProperty({ enum: WEBHOOK_ENDPOINTS }) endpoint: string;
  @ApiProperty({ nullable: true, type: String, example: 'drawing.created' }) event: string | null;
  @ApiProperty({ enum: ['received', 'routed', 'ignored', 'failed'] }) status: string;
  @ApiProperty({ description: 'How many equal deliveries the service sent again within the dedupe window.' }) duplicates: number;
  @ApiProperty({ description: 'Failed routing attempts.' }) attempts: number;
  @ApiProperty({ description: 'How many times an admin replayed it.' }) replays: number;
  @ApiProperty({ nullable: true, type: String, description: 'The project routing found it to concern.' }) project_id: string | null;
  @ApiProperty({ nullable: true, type: String, description: "That project's name; null while unknown." }) project_name: string | null;
  @ApiProperty({ nullable: true, type: String }) error: string | null;
  @ApiProperty({ format: 'date-time' }) received_at: string;
  @ApiProperty({ nullable: true, type: String, format: 'date-time' }) routed_at: string | null;
}

export class DeliveryDetailView extends DeliveryView {
  @ApiProperty({
    description: 'The body exactly as received (UTF-8 text); below the admin role, URL query strings and userinfo replaced by `?…` and `…@`.',
  })
  body: string;
  @ApiProperty({ nullable: true, description: 'The body parsed, integers beyond 2^53 as exact decimal strings; null when not JSON.' })
  json: unknown;
  @ApiProperty({ type: [SyncLogEntryView], description: 'The actions routing (and replays) recorded for it, oldest first.' })
  actions: SyncLogEntryView[];
}

const NO_NAMES: ReadonlyMap<string, string> = new Map();

export function deliveryView(row: DeliveryRow, projectNames: ReadonlyMap<string, string> = NO_NAMES): DeliveryView {
  return {
    id: String(row.id),
    endpoint: row.endpoint,
    event: row.event,
    status: row.status,
    duplicates: row.duplicates,
    attempts: row.attempts,
    replays: row.replays,
    project_id: row.projectId,
    project_name: row.projectId === null ? null : (projectNames.get(row.projectId) ?? null),
    error: row.error,
    received_at: iso(row.receivedAt)!,
    routed_at: iso(row.routedAt),
  };
}

export class ChainView {
  @ApiProperty({ description: 'The first action of the chain (an action whose parent is not among the listed ones).' }) root_id: string;
  @ApiProperty({ type: [String], description: 'The chain, parents before children, siblings in creation order.' }) ids: string[];
}

export class DealRevenueView {
  @ApiProperty({ example: 'Deals/4150868000005277036' }) target: string;
  @ApiProperty({ nullable: true, type: String, description: 'Where the Deal opens in Zoho; null when not known.' }) web_url: string | null;
  @ApiProperty({ nullable: true, type: String, example: '626.40', description: 'Amount as last written, exact decimal text.' }) amount: string | null;
  @ApiProperty({ nullable: true, type: String, example: 'Closed Won', description: 'Stage as last written (null: never written).' }) stage: string | null;
  @ApiProperty({ nullable: true, type: String, example: '2026-11-25' }) closing_date: string | null;
  @ApiProperty({ example: '36029621652695101' }) proposal_id: string;
  @ApiProperty({ format: 'date-time' }) written_at: string;
  @ApiProperty({ description: 'The update_deal entry that wrote it.' }) sync_log_id: string;
}

export class ProjectCustomerView {
  @ApiProperty({ nullable: true, type: String }) name: string | null;
  @ApiProperty({ nullable: true, type: String }) email: string | null;
  @ApiProperty({ nullable: true, type: String }) phone: string | null;
}

export class ProjectView {
  @ApiProperty({ example: '36029621652695017' }) project_id: string;
  @ApiProperty({ nullable: true, type: String, description: "The project's name (from its events, or P4 when first shown); null when the service cannot say." })
  name: string | null;
  @ApiProperty({ nullable: true, type: ProjectCustomerView }) customer: ProjectCustomerView | null;
  @ApiProperty({ type: [MappingView] }) mappings: MappingView[];
  @ApiProperty({ type: [DeliveryView], description: 'Newest first, at most 100.' }) deliveries: DeliveryView[];
  @ApiProperty({ type: [SyncLogEntryView], description: 'Newest first, at most 200; `parent_id` links a chain.' }) actions: SyncLogEntryView[];
  @ApiProperty({ type: [ChainView], description: 'The listed actions grouped by chain, newest chain first.' }) chains: ChainView[];
  @ApiProperty({ type: DealRevenueView, nullable: true, description: "The project's Deal as crm-sync last wrote it (update_deal); null: never." })
  deal: DealRevenueView | null;
}

export class HourView {
  @ApiProperty({ format: 'date-time', description: 'Start of the UTC hour.' }) hour: string;
  @ApiProperty() succeeded: number;
  @ApiProperty() failed: number;
  @ApiProperty() skipped: number;
}

export class ConnectionStateView {
  @ApiProperty({ enum: ['connected', 'degraded', 'not_configured'] }) status: string;
  @ApiProperty({ nullable: true, type: String, description: 'Why it is degraded.' }) detail: string | null;
}

export class ProjectsCreatedView {
  @ApiProperty({ description: 'Projects the automations created (or found, made by a try whose answer was lost) in the window.' }) total: number;
  @ApiProperty({ description: 'Of them, from appointments.' }) appointment: number;
  @ApiProperty({ description: 'Of them, from Zoho records.' }) record: number;
  @ApiProperty({ description: 'Creations that failed for good in the window (each alerted, naming its record).' }) failed: number;
}

export class ZohoCallsTodayView {
  @ApiProperty({ description: 'The UTC day counted, YYYY-MM-DD.' }) day: string;
  @ApiProperty({
    nullable: true,
    type: Number,
    description: 'Zoho calls every replica made that day (API and token requests); null when Redis, which keeps the count, did not answer.',
  })
  calls: number | null;
  @ApiProperty({ description: "The org's daily API call allowance (ZOHO_DAILY_CALL_ALLOWANCE, default 50,000)." }) allowance: number;
}

export class OverviewView {
  @ApiProperty({ enum: ['24h', '7d'] }) window: string;
  @ApiProperty({ format: 'date-time' }) since: string;
  @ApiProperty({ type: 'object', additionalProperties: { type: 'number' }, description: 'Actions per status whose last change is in the window.' })
  by_status: Record<string, number>;
  @ApiProperty({ type: 'object', additionalProperties: { type: 'number' }, description: 'Actions per kind created in the window.' })
  by_kind: Record<string, number>;
  @ApiProperty({ nullable: true, type: Number, description: 'succeeded / (succeeded + failed) in the window; null when neither.' })
  success_rate: number | null;
  @ApiProperty({ type: [HourView], description: 'Finished actions per UTC hour, every hour of the window.' }) per_hour: HourView[];
  @ApiProperty({ nullable: true, type: Number, description: 'Seconds the longest-waiting queued action has waited since it was queued.' })
  oldest_queued_age_seconds: number | null;
  @ApiProperty({ description: 'Deliveries stored and not routed yet.' }) deliveries_waiting: number;
  @ApiProperty({ type: ProjectsCreatedView, description: 'Projects created from CRM records (`create_project` entries finished in the window).' })
  projects_created: ProjectsCreatedView;
  @ApiProperty({ type: 'object', additionalProperties: true, description: '`service`, `appointment_crm`, `record_crm`, `webhooks`.' })
  connections: Record<string, unknown>;
  @ApiProperty({ type: ZohoCallsTodayView, description: 'Zoho calls today: N of the org\'s daily allowance (docs/zoho-crm.md "Credits").' })
  zoho_calls_today: ZohoCallsTodayView;
}

/** Groups actions into chains by `parent_id`; a parent outside the list makes the action a root. */
export function chainsOf(actions: Array<{ id: string; parentId: string | null }>): ChainView[] {
  const byId = new Map(actions.map((a) => [String(a.id), a]));
  const children = new Map<string, string[]>();
  const roots: string[] = [];
  for (const a of actions) {
    const parent = a.parentId === null ? null : String(a.parentId);
    if (parent !== null && byId.has(parent)) children.set(parent, [...(children.get(parent) ?? []), String(a.id)]);
    else roots.push(String(a.id));
  }
  const byIdAsc = (x: string, y: string) => (BigInt(x) < BigInt(y) ? -1 : BigInt(x) > BigInt(y) ? 1 : 0);
  const walk = (id: string, out: string[]) => {
    out.push(id);
    for (const child of (children.get(id) ?? []).sort(byIdAsc)) walk(child, out);
  };
  return roots
    .sort((x, y) => byIdAsc(y, x))
    .map((root) => {
      const ids: string[] = [];
      walk(root, ids);
      return { root_id: root, ids };
    });
}
