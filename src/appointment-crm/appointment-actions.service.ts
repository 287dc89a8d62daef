import { Inject, Injectable } from '@nestjs/common';
import { setTimeout as sleep } from 'node:timers/promises';
import { APP_CONFIG, type AppConfig } from '../config/app-config.js';
import { withAdvisoryLock } from '../database/advisory-lock.js';
import { pdfFileName } from '../http/file-names.js';
import type { PdfStream } from '../http/pdf-download.js';
import { OutboundError } from '../http/outbound-error.js';
import { withRetries } from '../http/retry.js';
import { QUEUES } from '../queues/queues.js';
import { ServiceApiClient } from '../service-api/service-api.client.js';
import type { AppointmentNotePayload, LineItemsPayload } from '../domain/actions.js';
import { PermanentActionError, RunAgainError, type ActionEntry, type ActionOutcome } from '../actions/action.types.js';
import { RunsAction } from '../actions/runs-action.decorator.js';
import { WriteFenceService } from '../actions/write-fence.service.js';
import type { SyncLogEntry } from '../sync-log/sync-log.row.js';
import { APPOINTMENT_CRM, type AppointmentCrm, type AppointmentFile, type FileCategory, type IdempotencyKey, type UploadFile } from './appointment-crm.js';
import { ConnectedProductsService } from './connected-products.service.js';
import { AppointmentDrawingPushRepository } from './appointment-drawing-push.repository.js';
import { FileReplaceRepository } from './file-replace.repository.js';
import type { AppointmentDrawingPush } from './drawing-push.row.js';
import { entryKey } from './idempotency-key.js';
import { saleFromLineItems } from './sale.js';
import { SelectedAppointmentCrm } from './selected-appointment-crm.js';

export const SOLD = 'Sold';

/** What a replace overtaken by a newer one of the same files says (see replaceFiles). */
const OVERTAKEN = 'a newer replace of these files started meanwhile and keeps its own';

const ON_APPOINTMENT_QUEUE = { crm: 'appointment', queue: QUEUES.appointmentCrm } as const;

/** The sale's pushes are numbered beside the file replaces (appointment_file_replace), under a category of their own. */
const SALE_RUNS = 'sale';

export interface DrawingVersion {
  drawingId: string;
  name: string;
  versionId: string;
}

interface PdfSource {
  fileName: string;
  open: () => Promise<PdfStream>;
}

type Next = NonNullable<ActionOutcome['next']>[number];

/** The appointment CRM's push flows, one sync action kind each. */
@Injectable()
export class AppointmentActionsService {
  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @Inject(APPOINTMENT_CRM) private readonly crm: AppointmentCrm,
    private readonly service: ServiceApiClient,
    private readonly products: ConnectedProductsService,
    private readonly drawingPushes: AppointmentDrawingPushRepository,
    private readonly selected: SelectedAppointmentCrm,
    private readonly fileReplaces: FileReplaceRepository,
    private readonly fence: WriteFenceService,
  ) {}

  @RunsAction('push_drawings', ON_APPOINTMENT_QUEUE)
  async pushDrawings(entry: ActionEntry<'push_drawings'>): Promise<ActionOutcome> {
    return (await this.servicePushes()) ?? this.replaceDrawings(entry, targetOf(entry));
  }

  @RunsAction('push_proposal_pdf', ON_APPOINTMENT_QUEUE)
  async pushProposalPdf(entry: ActionEntry<'push_proposal_pdf'>): Promise<ActionOutcome> {
    return (await this.servicePushes()) ?? this.replaceProposalPdf(entry, targetOf(entry));
  }

  @RunsAction('push_line_items', ON_APPOINTMENT_QUEUE)
  async pushLineItems(entry: ActionEntry<'push_line_items'>): Promise<ActionOutcome> {
    return (await this.servicePushes()) ?? this.putSale(entry, targetOf(entry));
  }

  /** With the service pushing to the org itself, crm-sync's pushes of files, sales and Sold are skipped, whoever asked. */
  private async servicePushes(): Promise<ActionOutcome | null> {
    if ((await this.selected.pushesBy()) !== 'service') return null;
    return { status: 'skipped', detail: 'the service pushes files, sales and Sold to this org itself (APPOINTMENT_CRM_PUSHES=service); nothing pushed' };
  }

  @RunsAction('set_status', ON_APPOINTMENT_QUEUE)
  async setStatus(entry: ActionEntry<'set_status'>): Promise<ActionOutcome> {
    const skipped = await this.servicePushes();
    if (skipped) return skipped;
    const id = targetOf(entry);
    const status = entry.payload.status ?? SOLD;
    await this.crm.setStatus(id, status, entryKey(entry, 'status'));
    return { status: 'succeeded', detail: `appointment ${id} status set to ${status}` };
  }

  /**
   * Adds a note once: a note with the same text already on the appointment (an earlier try got through, its answer
   * lost) is not added again. The text carries every field of the payment that identifies the fact, so equal text
   * is the same fact. A CRM without the notes listing gets the note unchecked.
   */
  @RunsAction('add_note', ON_APPOINTMENT_QUEUE)
  async addNote(entry: ActionEntry<'add_note'>): Promise<ActionOutcome> {
    const id = targetOf(entry);
    const text = String((entry.payload as AppointmentNotePayload).text);
    const key = entryKey(entry, 'note');
    const find = async () => {
      const notes = await this.crm.listNotes(id);
      return notes === null ? { listed: false } : { listed: true, note: notes.find((n) => n.text.trim() === text.trim()) };
    };

    // A note an earlier run sent (its replica stopped, its answer lost) may land late: look once it would have.
    await this.fence.afterEarlierRuns(entry, 'note', this.config.http.timeoutMs);
    const first = await find();
    if (first.note) return { status: 'succeeded', detail: `note already on appointment ${id} (note ${first.note.id})` };
    const found = await withRetries(async (attempt) => {
      // After an unclear failure the note may be there: look again (the failed write waited as long as it went unanswered).
      const earlier = attempt > 1 && first.listed ? (await find()).note : undefined;
      if (!earlier) {
        await this.fence.sending(entry, 'note', `adding a note to appointment ${id}`);
        await this.crm.addNote(id, text, key);
      }
      return earlier;
    }, this.config.http.retry);
    if (found) return { status: 'succeeded', detail: `note already on appointment ${id} (note ${found.id})` };
    const unchecked = first.listed ? '' : ' (the CRM cannot list notes: added without looking for an earlier one)';
    return { status: 'succeeded', detail: `note added to appointment ${id}${unchecked}` };
  }

  /** Every drawing of the project (P8, every page) with its current version (D2). */
  async currentDrawings(projectId: string): Promise<DrawingVersion[]> {
    const drawings: DrawingVersion[] = [];
    for await (const item of this.service.allDrawings(projectId)) {
      const { drawing_version_id } = await this.service.getLineItems(item.id);
      drawings.push({ drawingId: item.id, name: item.name, versionId: drawing_version_id });
    }
    return drawings;
  }

  /** The drawings and versions the appointment's `drawing` files were last made from. */
  async pushedDrawings(appointmentId: string): Promise<AppointmentDrawingPush[]> {
    return this.drawingPushes.findByAppointment(appointmentId);
  }

  private async replaceDrawings(entry: ActionEntry<'push_drawings'>, appointmentId: string): Promise<ActionOutcome> {
    const projectId = projectOf(entry);
    const run = await this.fileReplaces.start(appointmentId, 'drawing');
    const sources: Array<PdfSource & { drawing: DrawingVersion }> = [];
    const withoutPdf: string[] = [];
    for (const drawing of await this.currentDrawings(projectId)) {
      // D1 at the version D2 named, so the PDF and the recorded version belong together.
      const view = await this.service.getDrawing(drawing.drawingId, drawing.versionId || undefined);
      if (!view.pdf_url) {
        withoutPdf.push(drawing.drawingId);
        continue;
      }
      const url = view.pdf_url;
      sources.push({ drawing, fileName: pdfFileName(view.name || drawing.name, drawing.drawingId), open: () => this.service.openPdf(url) });
    }
    if (sources.length === 0) {
      // An empty list is more likely a glitch than a project emptied on purpose: keep the files the appointment has.
      return { status: 'skipped', detail: `project ${projectId} has no drawing with a PDF; the appointment's drawing files are left as they are` };
    }
    const { uploaded, deleted, overtaken } = await this.replaceFiles(entry, appointmentId, 'drawing', run, sources);
    if (overtaken) return { status: 'succeeded', detail: `${uploaded} drawing PDF(s) uploaded and removed again: ${OVERTAKEN}` };
    await this.recordPushed(
      appointmentId,
      sources.map((s) => s.drawing),
    );
    const missing = withoutPdf.length > 0 ? `; without a PDF yet: ${withoutPdf.join(', ')}` : '';
    return { status: 'succeeded', detail: `${uploaded} drawing PDF(s) uploaded, ${deleted} old drawing file(s) deleted${missing}` };
  }

  private async replaceProposalPdf(entry: ActionEntry<'push_proposal_pdf'>, appointmentId: string): Promise<ActionOutcome> {
    const payload = entry.payload;
    const run = await this.fileReplaces.start(appointmentId, 'proposal');
    let url: string;
    let what: string;
    if (payload.pdf_url) {
      url = payload.pdf_url;
      what = `signed proposal ${payload.proposal_id ?? ''}`.trim();
    } else if (payload.drawing_id) {
      const templateId = await this.service.proposalTemplateId();
      url = await this.service.exportProposalPdf(templateId, payload.drawing_id);
      what = `proposal of drawing ${payload.drawing_id} (template ${templateId})`;
    } else {
      throw new PermanentActionError('push_proposal_pdf needs pdf_url or drawing_id');
    }
    // Made safe like every file name sent: the id lands in a multipart header, where a quote or CR/LF would break out.
    const fileName = pdfFileName(`proposal-${payload.proposal_id || payload.drawing_id}`, 'proposal');
    const projectId = entry.projectId;
    const open =
      payload.pdf_url && payload.proposal_id && projectId
        ? () => this.service.openSignedProposalPdf(url, projectId, payload.proposal_id!)
        : () => this.service.openPdf(url);
    const { deleted, overtaken } = await this.replaceFiles(entry, appointmentId, 'proposal', run, [{ fileName, open }]);
    const next: Next = payload.drawing_id
      ? lineItemsAction(entry, appointmentId, { drawing_id: payload.drawing_id, drawing_version_id: payload.drawing_version_id, amount: payload.amount })
      : soldAction(entry, appointmentId, payload.amount);
    const done = overtaken ? `uploaded and removed again: ${OVERTAKEN}` : `uploaded, ${deleted} old proposal file(s) deleted`;
    // A revenue heal of the file alone: the sale and the status may hold a person's values.
    return { status: 'succeeded', detail: `${what} ${done}`, next: payload.alone ? [] : [next] };
  }

  /**
   * One sale per appointment: pushes of it run one at a time across replicas (an advisory lock), and each takes a
   * number before it reads the line items, so that without the lock too only the newest push's sale stays (the CRM's
   * putSale asks `stillLatest`). A later run of the entry waits until the replace an earlier run sent would have
   * landed before it starts (the write fence).
   */
  private async putSale(entry: ActionEntry<'push_line_items'>, appointmentId: string): Promise<ActionOutcome> {
    const payload = entry.payload;
    const projectId = projectOf(entry);
    const run = await this.fileReplaces.start(appointmentId, SALE_RUNS);
    const drawing = await this.service.getDrawing(payload.drawing_id);
    if (drawing.project_id !== projectId) {
      throw new PermanentActionError(`drawing ${payload.drawing_id} belongs to project ${drawing.project_id}, not to project ${projectId}`);
    }
    const lineItems = await this.service.getLineItems(payload.drawing_id, payload.drawing_version_id);
    const sale = await saleFromLineItems(lineItems, payload.drawing_id, (productId) => this.products.externalIdOf(productId));
    await this.withLock(`appointment-sale:${appointmentId}`, async () => {
      await this.fence.afterEarlierRuns(entry, 'sale', this.config.http.timeoutMs);
      await this.fence.sending(entry, 'sale', `replacing the sale of appointment ${appointmentId}`);
      await this.crm.putSale(appointmentId, sale, entryKey(entry, 'sale'), () => this.fileReplaces.isLatest(appointmentId, SALE_RUNS, run));
    });
    const connected = sale.items.filter((item) => item.external_product_id !== null).length;
    return {
      status: 'succeeded',
      detail: `sale of drawing ${payload.drawing_id} (version ${sale.drawing_version_id}): ${sale.items.length} item(s), ${connected} with a connected product, total ${sale.total}`,
      // A revenue heal of the sale alone: the status may hold a person's value.
      next: payload.alone ? [] : [soldAction(entry, appointmentId, payload.amount)],
    };
  }

  /**
   * Uploads the new files first, then deletes every other file of the category, so a retry (or a run killed half
   * way and started again) converges on exactly the new files, and the appointment is never left without any.
   * An upload's idempotency key names the run: a lost answer is retried within the run under the same key, while a
   * run again uploads afresh (the drawings may have changed, or its earlier uploads may be gone) and its deletes
   * remove what the earlier run left.
   *
   * Right without the lock too (it is lost when its connection is, and another replace may then run beside this
   * one): each replace takes a number in Postgres (`run`) before it reads what it pushes (the drawings' versions, the
   * proposal's PDF), so a higher number never pushes older content, and lists the files before it asks whether a
   * newer replace has started since. (Taken after the reads, a replace slowed in them outnumbered a newer one and
   * deleted its fresher files.) The latest deletes every other file of the category; one overtaken deletes
   * only its own uploads, which the newer one may not have seen. A replace started after the question uploads after
   * the listing, so nobody deletes a newer replace's files: two interleaved replaces end with the newer one's files,
   * never with none. The lock (one replace at a time per appointment and category, across replicas) only spares the
   * CRM the overtaken uploads.
   *
   * An upload cannot be called back once sent, and one whose answer was lost (a time-out; its run's lock or replica
   * lost meanwhile) may land late. Each upload is marked in Postgres while it goes unanswered, and every replace of
   * the category, whichever entry or run it is, lists the files only once every such upload would have landed, so the
   * latest one's listing holds it and deletes it. Without that, a replace beside a run that had lost its lock listed
   * before that run's upload landed, and the file stayed beside the newer ones (the soak's seed 400502900). An
   * overtaken replace cannot tell an upload of its own whose answer it lost from the newer one's files, so such a run
   * fails as transient and runs again: as the latest then, it deletes what it left.
   */
  private async replaceFiles(
    entry: Pick<SyncLogEntry, 'id' | 'attempts' | 'retryBase'> & { payload: object },
    appointmentId: string,
    category: FileCategory,
    run: string,
    sources: PdfSource[],
  ): Promise<{ uploaded: number; deleted: number; overtaken: boolean }> {
    return this.withLock(`appointment-files:${appointmentId}:${category}`, async () => {
      await this.crm.getAppointment(appointmentId); // an unknown appointment fails before any download
      const uploaded = new Set<string>();
      let failedUploads = 0;
      for (const [index, source] of sources.entries()) {
        // A stream can be sent once, so a transient failure retries the download and the upload together.
        const file = await withRetries(async () => {
          const pdf = await source.open();
          try {
            // The position too: two drawings may have the same name, and each must be uploaded.
            const uploadKey = entryKey(entry, `run-${entry.attempts}:upload-${category}:${index + 1}`, source.fileName);
            const file = { stream: pdf.stream, fileName: source.fileName, size: pdf.size };
            return await this.upload(appointmentId, category, file, uploadKey, () => (failedUploads += 1));
          } finally {
            pdf.stream.destroy();
          }
        }, this.config.http.retry);
        uploaded.add(file.id);
      }
      await sleep(await this.fileReplaces.msUntilUploadsLanded(appointmentId, category));
      const others = (await this.crm.listFiles(appointmentId)).filter((f) => f.category === category && !uploaded.has(f.id)).map((f) => f.id);
      const overtaken = !(await this.fileReplaces.isLatest(appointmentId, category, run));
      if (overtaken && failedUploads > 0) {
        // Its own files are among the others, which a newer replace keeps: delete what it knows, the rest next run.
        for (const fileId of uploaded) await this.crm.deleteFile(appointmentId, fileId, entryKey(entry, 'delete', fileId));
        throw new RunAgainError(`${failedUploads} upload(s) of this ${category} replace failed and may have landed; a newer replace started meanwhile`);
      }
      const stale = overtaken ? [...uploaded] : others;
      for (const fileId of stale) await this.crm.deleteFile(appointmentId, fileId, entryKey(entry, 'delete', fileId));
      return { uploaded: uploaded.size, deleted: overtaken ? 0 : stale.length, overtaken };
    });
  }

  /**
   * One try of an upload, marked in Postgres until it is answered. One that fails unanswered (a time-out, a connection
   * lost mid-request) may still land: as long again as it went unanswered, as this run waits before its next try
   * (withRetries). One whose sender stopped first (its replica killed) would have landed twice the call time-out after
   * it was sent: it lands only once its body arrived whole, and the CRM answers within the call time-out.
   */
  private async upload(appointmentId: string, category: FileCategory, file: UploadFile, key: IdempotencyKey, onFailure: () => void): Promise<AppointmentFile> {
    const sent = await this.fileReplaces.uploadSent(appointmentId, category, 2 * this.config.http.timeoutMs);
    try {
      const uploaded = await this.crm.uploadFile(appointmentId, category, file, key);
      await this.fileReplaces.uploadAnswered(sent);
      return uploaded;
    } catch (err) {
      onFailure();
      await (mayLandLate(err) ? this.fileReplaces.uploadUnanswered(sent) : this.fileReplaces.uploadAnswered(sent));
      throw err;
    }
  }

  private withLock<T>(key: string, work: () => Promise<T>): Promise<T> {
    return withAdvisoryLock(this.config.databaseUrl, key, work);
  }

  private async recordPushed(appointmentId: string, drawings: DrawingVersion[]): Promise<void> {
    await this.drawingPushes.replaceForAppointment(
      appointmentId,
      drawings.map((d) => ({ drawingId: d.drawingId, drawingVersionId: d.versionId })),
      new Date(),
    );
  }
}

function lineItemsAction(entry: Pick<SyncLogEntry, 'projectId'>, appointmentId: string, payload: LineItemsPayload): Next {
  return { kind: 'push_line_items', crm: 'appointment', projectId: entry.projectId, target: appointmentId, payload: { ...payload } };
}

/** Sold; an approval's total rides along the chain (the funnel counts what was written, with its amount). */
function soldAction(entry: Pick<SyncLogEntry, 'projectId'>, appointmentId: string, amount?: string): Next {
  const payload = amount === undefined ? { status: SOLD } : { status: SOLD, amount };
  return { kind: 'set_status', crm: 'appointment', projectId: entry.projectId, target: appointmentId, payload };
}

/** An upload that failed without an answer (a time-out, the connection lost mid-request): the CRM may still apply it. */
function mayLandLate(err: unknown): boolean {
  if (!(err instanceof OutboundError)) return true;
  return err.status === null && err.retryAfterMs !== undefined;
}

function targetOf(entry: Pick<SyncLogEntry, 'kind' | 'target'>): string {
  if (!entry.target) throw new PermanentActionError(`${entry.kind} has no appointment id`);
  return entry.target;
}

function projectOf(entry: Pick<SyncLogEntry, 'kind' | 'projectId'>): string {
  if (!entry.projectId) throw new PermanentActionError(`${entry.kind} has no project id`);
  return entry.projectId;
}
