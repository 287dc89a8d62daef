import { ApiProperty } from '@nestjs/swagger';
import { FUNNEL_CRMS } from './funnel.dto.js';

export const FUNNEL_STEPS = [
  'read',
  'qualifying',
  'projects_created',
  'mapped',
  'drawings_pushed',
  'proposals_exported',
  'approved',
  'written',
  'in_agreement',
  'failed',
  'waiting',
] as const;
export type FunnelStepName = (typeof FUNNEL_STEPS)[number];

export class FunnelPartView {
  @ApiProperty({ example: 'Deal amount' }) label: string;
  @ApiProperty() count: number;
  @ApiProperty({ nullable: true, type: String, example: '4250.00', description: 'Exact decimal text; null when the step carries no amount.' }) amount:
    string | null;
  @ApiProperty({ example: '/api/sync-logs?crm=record&kind=update_deal&status=succeeded&since=2026-11-19T10:00:00.000Z' }) link: string;
}

export class FunnelStepView extends FunnelPartView {
  @ApiProperty({ enum: FUNNEL_STEPS }) step: FunnelStepName;
  @ApiProperty({ type: [FunnelPartView], description: 'What the step is made of (written: the sale and Sold; the Deal amount and the Quote).' })
  parts: FunnelPartView[];
}

export class FunnelCrmView {
  @ApiProperty({ enum: FUNNEL_CRMS }) crm: string;
  @ApiProperty({ example: 'Zoho CRM' }) name: string;
  @ApiProperty({ type: [FunnelStepView], description: 'In the order a sale flows; a step that does not apply to the CRM is left out.' })
  steps: FunnelStepView[];
}

export class FunnelDayView {
  @ApiProperty({ example: '2026-11-24', description: 'A UTC day.' }) day: string;
  @ApiProperty({ description: 'Proposals approved that day (both CRMs, or the one asked for).' }) approved: number;
  @ApiProperty({ example: '4250.00', description: 'Their approved total, exact decimal text ("0" on a day with none).' }) amount: string;
}

export class FunnelView {
  @ApiProperty({ enum: ['24h', '7d', '30d'] }) window: string;
  @ApiProperty({ format: 'date-time', description: 'The window starts here; it ends now.' }) since: string;
  @ApiProperty({ type: [FunnelCrmView] }) crms: FunnelCrmView[];
  @ApiProperty({ type: [FunnelDayView], description: 'Approved amounts per UTC day, from the day the window starts in to today, zero-filled.' })
  approved_per_day: FunnelDayView[];
}
