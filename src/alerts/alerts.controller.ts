import { Controller, Get, HttpCode, Inject, Post, Query } from '@nestjs/common';
import { ApiOperation, ApiProperty, ApiTags } from '@nestjs/swagger';
import { AdminRoute, RequiresRole } from '../auth/admin-auth.guard.js';
import { ApiPageResponse, idCursor, PageQueryDto, pageLimit, toPage, type PageOf } from '../common/pagination.js';
import { APP_CONFIG, type AppConfig } from '../config/app-config.js';
import type { AlertRow } from './alert.repository.js';
import { AlertRepository } from './alert.repository.js';
import { alertHost, AlertsService, type AlertOutcome } from './alerts.service.js';

/** One alert as the API shows it. */
export class AlertView {
  @ApiProperty() id: string;
  @ApiProperty() kind: string;
  @ApiProperty() status: string;
  @ApiProperty() count: number;
  @ApiProperty({ type: [String] }) entries: string[];
  @ApiProperty({ type: String, nullable: true }) text: string | null;
  @ApiProperty({ type: String, nullable: true }) error: string | null;
  @ApiProperty({ type: Number, nullable: true }) http_status: number | null;
  @ApiProperty({ format: 'date-time' }) created_at: string;
  @ApiProperty({ type: String, format: 'date-time', nullable: true }) sent_at: string | null;
}

export function alertView(row: AlertRow): AlertView {
  return {
    id: row.id,
    kind: row.kind,
    status: row.status,
    count: row.count,
    entries: row.entries,
    text: row.text,
    error: row.error,
    http_status: row.httpStatus,
    created_at: new Date(row.createdAt).toISOString(),
    sent_at: row.sentAt ? new Date(row.sentAt).toISOString() : null,
  };
}

/** What the console shows of the retention and alert settings (the alert URL's host only: its path is a secret). */
// A class, not an interface: the @nestjs/swagger build plugin names a route's return type in its generated metadata,
// and an interface there becomes a reference the next build's type check refuses.
export class SettingsView {
  retention: { sync_log_days: number; inbox_days: number };
  alerts: { webhook_configured: boolean; webhook_host: string | null; min_interval_seconds: number; public_url: string | null };
}

@ApiTags('alerts')
@AdminRoute()
@Controller('api')
export class AlertsController {
  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly repository: AlertRepository,
    private readonly alerts: AlertsService,
  ) {}

  @Get('alerts')
  @RequiresRole('viewer')
  @ApiOperation({ summary: 'Alerts sent, failed (with the reason) or recorded without an ALERT_WEBHOOK_URL; newest first.' })
  @ApiPageResponse(AlertView)
  async list(@Query() query: PageQueryDto): Promise<PageOf<AlertView>> {
    const limit = pageLimit(query);
    const rows = await this.repository.list(limit + 1, idCursor(query));
    return toPage(rows, limit, (row) => row.id, alertView);
  }

  @Post('alerts/test')
  @RequiresRole('admin')
  @HttpCode(200)
  @ApiOperation({ summary: 'Sends a test alert now, whatever the throttle, and answers what happened.' })
  async test(): Promise<AlertOutcome & { id: string | null; text: string; webhook_host: string | null }> {
    const outcome = await this.alerts.sendTest();
    return { ...outcome, webhook_host: alertHost(this.config.alerts.webhookUrl) };
  }

  @Get('settings')
  @RequiresRole('viewer')
  @ApiOperation({ summary: 'Retention and alert settings (the alert URL as its host only).' })
  settings(): SettingsView {
    const { retention, alerts } = this.config;
    return {
      retention: { sync_log_days: retention.syncLogDays, inbox_days: retention.inboxDays },
      alerts: {
        webhook_configured: alerts.webhookUrl !== null,
        webhook_host: alertHost(alerts.webhookUrl),
        min_interval_seconds: alerts.minIntervalSeconds,
        public_url: this.config.publicUrl,
      },
    };
  }
}
