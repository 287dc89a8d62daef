import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn, IsOptional } from 'class-validator';

export const FUNNEL_WINDOWS = { '24h': 24 * 3600_000, '7d': 7 * 24 * 3600_000, '30d': 30 * 24 * 3600_000 } as const;
export type FunnelWindow = keyof typeof FUNNEL_WINDOWS;
export const FUNNEL_CRMS = ['appointment', 'record'] as const;
export type FunnelCrm = (typeof FUNNEL_CRMS)[number];

export class FunnelQueryDto {
  @ApiPropertyOptional({ enum: Object.keys(FUNNEL_WINDOWS), default: '7d', description: 'The period counted, up to now.' })
  @IsOptional()
  @IsIn(Object.keys(FUNNEL_WINDOWS), { message: 'window must be 24h, 7d or 30d' })
  window?: FunnelWindow;

  @ApiPropertyOptional({ enum: FUNNEL_CRMS, description: 'One CRM only; both when left out.' })
  @IsOptional()
  @IsIn(FUNNEL_CRMS, { message: 'crm must be appointment or record' })
  crm?: FunnelCrm;
}
