import { Inject, Injectable } from '@nestjs/common';
import { APP_CONFIG, type AppConfig } from '../config/app-config.js';
import { safeFileName } from '../http/file-names.js';
import { withRetries } from '../http/retry.js';
import { QUEUES } from '../queues/queues.js';
import { ServiceApiClient } from '../service-api/service-api.client.js';
import type { AttachPdfPayload, RecordNotePayload, RecordRef } from '../domain/actions.js';
import { PermanentActionError, type ActionEntry, type ActionOutcome } from '../actions/action.types.js';
import { RunsAction } from '../actions/runs-action.decorator.js';
import { WriteFenceService } from '../actions/write-fence.service.js';
import { RECORD_CRM, type RecordCrm } from './record-crm.js';

const ON_RECORD_QUEUE = { crm: 'record', queue: QUEUES.recordCrm } as const;

/** The record CRM's sync actions: each pushes once, whatever a retry or a crash between push and bookkeeping does. */
@Injectable()
export class RecordActionsService {
  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @Inject(RECORD_CRM) private readonly recordCrm: RecordCrm,
    private readonly service: ServiceApiClient,
    private readonly fence: WriteFenceService,
  ) {}

  /**
   * Attaches a PDF to a record once. Before uploading, it looks for an attachment of the name an earlier try would
   * have used, so a job retry, or a crash between upload and bookkeeping, adds nothing; a failed upload is retried
   * together with its download (a stream is sent once), looking again first in case the failed try got through.
   */
  @RunsAction('attach_pdf', ON_RECORD_QUEUE)
  async attachPdf(entry: ActionEntry<'attach_pdf'>): Promise<ActionOutcome> {
    const p = entry.payload;
    const record: RecordRef = { module: p.module, recordId: p.recordId };
    const { fileName, matches } = await this.nameOf(p);

    await this.fence.afterEarlierRuns(entry, 'upload', this.config.http.uploadTimeoutMs);
    const existing = await this.recordCrm.findAttachment(record, matches);
    if (existing) return { status: 'succeeded', detail: `already attached as ${existing.fileName} (attachment ${existing.id})` };

    const url = p.drawingId ? await this.service.exportProposalPdf(await this.service.proposalTemplateId(), p.drawingId) : p.pdfUrl;
    if (!url) throw new PermanentActionError('no PDF to attach: the action has neither a drawing nor a PDF address');
    const attachmentId = await withRetries(async (attempt) => {
      const earlier = attempt > 1 ? await this.recordCrm.findAttachment(record, matches) : null;
      if (earlier) return earlier.id;
      const open =
        p.proposalId && entry.projectId && !p.drawingId
          ? () => this.service.openSignedProposalPdf(url, entry.projectId!, p.proposalId!)
          : () => this.service.openPdf(url);
      await this.fence.sending(entry, 'upload', `uploading ${fileName}`);
      return this.recordCrm.uploadAttachment(record, fileName, open);
    }, this.config.http.retry);
    return { status: 'succeeded', detail: `attached ${fileName} (attachment ${attachmentId})` };
  }

  /**
   * An export is named after the drawing plus the delivery's short id. It is found again by the short id alone,
   * so a drawing renamed between two tries still does not get a second copy.
   */
  private async nameOf(p: AttachPdfPayload): Promise<{ fileName: string; matches: (name: string) => boolean }> {
    if (!p.drawingId) {
      if (!p.fileName) throw new PermanentActionError('no attachment name in the action');
      return { fileName: p.fileName, matches: (name) => name === p.fileName };
    }
    if (!p.deliveryShortId) throw new PermanentActionError('the export action carries no delivery short id');
    const drawing = await this.service.getDrawing(p.drawingId);
    // Brackets, because short ids are small numbers and "Quote-3.pdf" is a name people give files themselves.
    const suffix = ` [${safeFileName(p.deliveryShortId)}].pdf`;
    const base = safeFileName(drawing.name).slice(0, 120) || `drawing-${p.drawingId}`;
    return { fileName: `${base}${suffix}`, matches: (name) => name.endsWith(suffix) };
  }

  /** Adds a note to a record once: an equal note already there (an earlier try got through) is not added again. */
  @RunsAction('add_note', ON_RECORD_QUEUE)
  async addNote(entry: ActionEntry<'add_note'>): Promise<ActionOutcome> {
    const p = entry.payload as RecordNotePayload;
    const record: RecordRef = { module: p.module, recordId: p.recordId };
    const find = async () => (await this.recordCrm.listNotes(record)).find((n) => n.title.trim() === p.title.trim() && n.content.trim() === p.content.trim());

    await this.fence.afterEarlierRuns(entry, 'note', this.config.http.timeoutMs);
    const existing = await find();
    if (existing) return { status: 'succeeded', detail: `note already on the record (note ${existing.id})` };
    const noteId = await withRetries(async (attempt) => {
      const earlier = attempt > 1 ? await find() : undefined;
      if (earlier) return earlier.id;
      await this.fence.sending(entry, 'note', `adding the note`);
      return this.recordCrm.addNote(record, p.title, p.content);
    }, this.config.http.retry);
    return { status: 'succeeded', detail: `note added (note ${noteId})` };
  }
}
