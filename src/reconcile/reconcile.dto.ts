import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn, IsOptional } from 'class-validator';
import { RECONCILE_SCOPES, type ReconcileScope } from '../domain/actions.js';

export class ReconcileRequestDto {
  @ApiPropertyOptional({
    enum: RECONCILE_SCOPES,
    default: 'changes',
    description: '`changes`: what changed in the service since the last pass (cheap); `full`: every mapped project, paced to half the rate cap.',
  })
  @IsOptional()
  @IsIn(RECONCILE_SCOPES, { message: `scope must be one of ${RECONCILE_SCOPES.join(', ')}` })
  scope?: ReconcileScope;
}
