import { WorkerHost } from '@nestjs/bullmq';
import { Inject, Injectable, Logger } from '@nestjs/common';
import { DelayedError, type Job } from 'bullmq';
import { ALERT_SINK, type AlertSink } from '../alerts/alert-sink.js';
import { APP_CONFIG, type AppConfig } from '../config/app-config.js';
import { LockLostError } from '../database/advisory-lock.js';
import { DatabaseUnavailableError } from '../database/database.errors.js';
import { DatabaseService } from '../database/database.service.js';
import { MetricsService } from '../observability/metrics.service.js';
import { CallTrace, withCallTrace } from '../http/call-trace.js';
import { OutboundError } from '../http/outbound-error.js';
import { PdfRejectedError } from '../http/pdf-download.js';
import { retryAfterBackoff } from '../queues/backoff.js';
import { DATABASE_RETRY_MS, runJobLater, whenDatabaseReady } from '../queues/jobs.js';
import { QUEUES, type RunActionJob } from '../queues/queues.js';
import { ActionRecorderService } from './action-recorder.service.js';
import { ActionRegistryService, noHandlerFor } from './action-registry.service.js';
import { CallTraceRepository } from '../sync-log/call-trace.repository.js';
import { PermanentActionError, RunAgainError, type ActionOutcome } from './action.types.js';
import { failureAlertDetail } from './failure-alert.js';
import type { SyncLogEntry } from '../sync-log/sync-log.row.js';
import { SyncLogRepository } from '../sync-log/sync-log.repository.js';
import { ProjectsService } from '../projects/projects.service.js';

/** Everything a worker needs, injected once so each queue's worker class stays a one-liner. */
@Injectable()
export class ActionWorkerDeps {
  constructor(
    @Inject(APP_CONFIG) readonly config: AppConfig,
    readonly database: DatabaseService,
    readonly syncLog: SyncLogRepository,
    readonly registry: ActionRegistryService,
    readonly actions: ActionRecorderService,
    readonly metrics: MetricsService,
    /** Told when an action fails for good. */
    @Inject(ALERT_SINK) readonly alerts: AlertSink,
    /** Stores each run's outbound calls. */
    readonly callTraces: CallTraceRepository,
    /** Names the project of an alert. */
    readonly projects: ProjectsService,
  ) {}
}

/**
 * Runs sync actions: marks the entry running, calls its handler, and records the outcome. Transient failures go
 * back on the queue as a delayed job (honouring Retry-After) until the entry has used its tries, unless a newer
 * entry holding its coalesce key is queued and supersedes it; permanent ones fail the entry at once. The tries are
 * counted on the entry, so they survive a lost queue and an admin's retry.
 */
export abstract class ActionWorker extends WorkerHost {
  private readonly logger = new Logger(this.constructor.name);
  private readonly backoff: (attemptsMade: number, type?: string, err?: Error) => number;

  protected constructor(
    private readonly deps: ActionWorkerDeps,
    private readonly queueName: string,
  ) {
    super();
    this.backoff = retryAfterBackoff(deps.config.jobs.backoffBaseMs);
  }

  async process(job: Job<RunActionJob>, token?: string): Promise<void> {
    await whenDatabaseReady(this.deps.database, job, token);
    // Postgres may go away between the readiness check and the claim: the job waits on the queue, as above.
    const entry = await this.deps.syncLog.startRun(job.data.entryId).catch((err: Error) => {
      this.logger.warn(`#${job.data.entryId} not claimed (${err.message}); its job runs again later`);
      return runJobLater(job, token, DATABASE_RETRY_MS);
    });
    if (!entry) return; // finished already: a repeated or stale job
    const handler = this.deps.registry.handlerFor(entry.kind, entry.crm);
    const timer = this.deps.metrics.jobDuration.startTimer({ queue: this.queueName, kind: entry.kind });
    try {
      // A run cut off by its process's death records nothing, and BullMQ hands its job on; such runs use the budget
      // too, so a job that kills every replica running it stops here.
      const runs = entry.attempts - entry.retryBase;
      if (runs > this.deps.config.jobs.attempts)
        throw new PermanentActionError(`not run again: ${runs - 1} runs started, the last cut off before it finished (the process running it stopped)`);
      if (!handler) throw new PermanentActionError(noHandlerFor(entry.kind));
      const outcome = await this.traced(entry, () => handler.run(entry));
      // The chain's next links first: their dedupe keys make recording them again a no-op, so a crash or a lost
      // connection between the two writes runs this action again (idempotent) instead of ending the chain here.
      await this.startNext(entry, outcome);
      await this.deps.syncLog.finish(entry.id, outcome.status, outcome.detail ?? null);
      this.count(entry, outcome.status);
      this.logger.log(`#${entry.id} ${entry.kind} ${outcome.status}${outcome.detail ? `: ${outcome.detail}` : ''}`);
    } catch (err) {
      if (err instanceof DelayedError) throw err;
      await this.fail(job, token, entry, err);
    } finally {
      timer();
    }
  }

  /** Runs the handler collecting its outbound calls, then stores them as this run's, whether it succeeded or not. */
  private async traced<T>(entry: SyncLogEntry, work: () => Promise<T>): Promise<T> {
    const trace = new CallTrace();
    try {
      return await withCallTrace(trace, work);
    } finally {
      if (trace.dropped > 0) this.logger.warn(`#${entry.id} made ${trace.dropped} more outbound call(s) than are kept`);
      await this.deps.callTraces.save(entry.id, entry.attempts, trace.calls).catch((err: Error) => {
        this.logger.warn(`#${entry.id} call trace not stored: ${err.message}`);
      });
    }
  }

  /** ` (project Ruiz kitchen 3602…)` for an alert: the name known now (nothing is read for it), with the id. */
  private async projectOf(entry: SyncLogEntry): Promise<string> {
    if (!entry.projectId) return '';
    const name = (await this.deps.projects.names([entry.projectId], false).catch(() => new Map<string, string>())).get(entry.projectId);
    return ` (project ${name ? `${name} ` : ''}${entry.projectId})`;
  }

  private async fail(job: Job, token: string | undefined, entry: SyncLogEntry, err: unknown): Promise<void> {
    const reason = reasonOf(err);
    if (isPermanent(err) || entry.attempts - entry.retryBase >= this.deps.config.jobs.attempts) {
      await this.deps.syncLog.finish(entry.id, 'failed', null, reason);
      this.count(entry, 'failed');
      this.logger.warn(`#${entry.id} ${entry.kind} failed after ${entry.attempts} attempt(s): ${reason}`);
      this.deps.alerts.notify('action_failed', { entryId: entry.id, detail: failureAlertDetail(entry, reason, await this.projectOf(entry)) });
      return;
    }
    const supersededBy = await this.deps.syncLog.awaitRetry(entry.id, reason).catch((writeErr: Error) => {
      // Postgres is still away (or an entry with its coalesce key was queued in a race with the write): the entry
      // stays `running`, which the job's next run claims again. A job let fail here would leave the work to the
      // relay's recovery, a minute or more later.
      this.logger.warn(`#${entry.id} not put back in Postgres (${writeErr.message}); its job runs again later`);
      return null;
    });
    if (supersededBy) {
      this.count(entry, 'skipped');
      this.logger.log(`#${entry.id} ${entry.kind} attempt ${entry.attempts} failed, not retried: superseded by #${supersededBy}: ${reason}`);
      return;
    }
    this.count(entry, 'retrying');
    const delayMs = this.backoff(entry.attempts - entry.retryBase, 'retry-after', err as Error);
    this.logger.warn(`#${entry.id} ${entry.kind} attempt ${entry.attempts} failed, retrying in ${delayMs} ms: ${reason}`);
    await runJobLater(job, token, delayMs).catch(async (err: unknown) => {
      if (err instanceof DelayedError) throw err;
      // The job is gone (Redis lost its data while this run went on): the relay enqueues the entry anew, rather
      // than the relay's periodic recovery a minute later.
      this.logger.warn(`#${entry.id} its job is gone from Redis (${(err as Error).message}); handed to the relay`);
      await this.deps.syncLog.releaseToRelay(entry.id);
    });
  }

  private async startNext(entry: SyncLogEntry, outcome: ActionOutcome): Promise<void> {
    if (!outcome.next?.length || outcome.status !== 'succeeded') return;
    await this.deps.actions.record(
      outcome.next.map((next, i) => ({
        ...next,
        trigger: next.trigger ?? entry.trigger,
        parentId: entry.id,
        inboxId: entry.inboxId ?? undefined,
        // A chain an admin started stays theirs (the sale, then status Sold).
        actor: entry.actor ?? undefined,
        dedupeKey: next.dedupeKey ?? `next:${entry.id}:${i}`,
      })),
    );
  }

  private count(entry: SyncLogEntry, result: string): void {
    this.deps.metrics.jobs.inc({ queue: this.queueName, kind: entry.kind, result });
  }
}

function isPermanent(err: unknown): boolean {
  if (err instanceof OutboundError) return !err.transient;
  if (err instanceof DatabaseUnavailableError) return false;
  return err instanceof PermanentActionError || err instanceof PdfRejectedError;
}

/** The reason an admin reads: our own errors are written for that; anything else is a bug, named as such. */
function reasonOf(err: unknown): string {
  if (err instanceof OutboundError || err instanceof PermanentActionError || err instanceof PdfRejectedError) return err.message;
  if (err instanceof DatabaseUnavailableError || err instanceof LockLostError || err instanceof RunAgainError) return err.message;
  const e = err as Error;
  return `unexpected error: ${e?.name ?? 'Error'}: ${e?.message ?? String(err)}`;
}

// One class per queue, each provider being one instance; ActionsModule binds each to its queue (queueWorker).

@Injectable()
export class ServiceActionsWorker extends ActionWorker {
  constructor(deps: ActionWorkerDeps) {
    super(deps, QUEUES.service);
  }
}

@Injectable()
export class AppointmentCrmActionsWorker extends ActionWorker {
  constructor(deps: ActionWorkerDeps) {
    super(deps, QUEUES.appointmentCrm);
  }
}

@Injectable()
export class RecordCrmActionsWorker extends ActionWorker {
  constructor(deps: ActionWorkerDeps) {
    super(deps, QUEUES.recordCrm);
  }
}
