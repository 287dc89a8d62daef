import { BadRequestException, Inject, Injectable, PayloadTooLargeException } from '@nestjs/common';
import { parse, type CsvError } from 'csv-parse';
import { Transform, type Readable } from 'node:stream';
import { APP_CONFIG, type AppConfig } from '../config/app-config.js';
import { parseMappingInput, type MappingInput } from './dto/mapping-input.dto.js';
import { MappingsService } from './mappings.service.js';

export const CSV_COLUMNS = ['crm', 'appointment_id', 'record_crm_module', 'record_crm_record_id', 'project_id'] as const;

/** Rows inserted per statement: large enough that 10,000 rows take a handful of round trips. */
const INSERT_BATCH = 1000;

export interface ImportRowResult {
  /** The physical line where the row starts; the header is line 1. */
  line: number;
  status: 'created' | 'error';
  error: string | null;
  mapping_id: string | null;
}

export interface ImportResult {
  created: number;
  errors: number;
  items: ImportRowResult[];
}

type CsvRecord = { record: string[]; info: { lines: number; records: number } };

export type ImportLimits = AppConfig['mappingImport'];

/** The defaults of MAPPING_IMPORT_MAX_BYTES, _ROWS and _RECORD_BYTES (see app-config.ts). */

/** An upload past one of the import's limits; answered 413, naming the limit and its variable. */
class ImportLimitError extends Error {}

/**
 * Imports mappings from CSV, read as a stream: rows are parsed, validated and inserted in batches while the upload
 * is still arriving, so the file is never held whole. Good rows are kept; bad ones are answered with their line
 * and the reason. Blank lines (and rows whose every field is empty) are passed over.
 */
@Injectable()
export class MappingImportService {
  private readonly limits: ImportLimits;

  constructor(
    private readonly mappings: MappingsService,
    @Inject(APP_CONFIG) config: AppConfig,
  ) {
    this.limits = config.mappingImport;
  }

  /**
   * Bytes, rows and one record's size are capped, since the upload is read as it streams in and its results are
   * kept for the answer. Rows before the one past a limit have been created already; the 413 says so.
   */
  async importCsv(body: Readable, declaredBytes?: number): Promise<ImportResult> {
    const { maxBytes, maxRows, maxRecordBytes } = this.limits;
    if (declaredBytes !== undefined && declaredBytes > maxBytes) throw tooLarge(`the CSV is larger than ${maxBytes} bytes (MAPPING_IMPORT_MAX_BYTES)`);
    const parser = parse({
      // A record of a mapping is well under 1 KB; a longer one is not a mapping, and would otherwise grow unbounded.
      max_record_size: maxRecordBytes,
      bom: true,
      info: true,
      // Spreadsheets mix line endings; a lone `"` inside a field is kept rather than derailing the rest of the file.
      record_delimiter: ['\r\n', '\n', '\r'],
      relax_quotes: true,
      relax_column_count: true,
      skip_records_with_error: true,
    });
    // Records that cannot be parsed (an unclosed quote) are reported through `skip`, synchronously while parsing, so
    // every skip before a record has arrived by the time that record is read. `records` orders the two streams.
    const skipped: Array<{ records: number; lines: number; message: string }> = [];
    parser.on('skip', (err: CsvError & { records?: number; lines?: number }) => {
      if (err.code === 'CSV_MAX_RECORD_SIZE') {
        parser.destroy(
          new ImportLimitError(`line ${err.lines ?? '?'} holds a record longer than ${maxRecordBytes} characters (MAPPING_IMPORT_MAX_RECORD_BYTES)`),
        );
        return;
      }
      skipped.push({ records: err.records ?? 0, lines: err.lines ?? 0, message: err.message });
    });
    let bytes = 0;
    const counter = new Transform({
      transform(chunk: Buffer, _encoding, done) {
        bytes += chunk.length;
        if (bytes > maxBytes) done(new ImportLimitError(`the CSV is larger than ${maxBytes} bytes (MAPPING_IMPORT_MAX_BYTES)`));
        else done(null, chunk);
      },
    });
    body.on('error', (err) => parser.destroy(err));
    counter.on('error', (err) => parser.destroy(err));
    body.pipe(counter).pipe(parser);
    let rows = 0;

    const results: ImportRowResult[] = [];
    let header: number[] | null = null;
    let lastLine = 0;
    // csv-parse's `info.lines` counts a CRLF inside a quoted field as two lines; the CRLFs read so far are taken off.
    let crlfInFields = 0;
    let batch: Array<{ input: MappingInput; result: ImportRowResult }> = [];
    const flush = async () => {
      if (batch.length === 0) return;
      const created = await this.mappings.createMany(
        batch.map((b) => b.input),
        'import',
      );
      created.forEach((outcome, i) => {
        const result = batch[i].result;
        if (outcome.status === 'created') result.mapping_id = outcome.mapping.id;
        else Object.assign(result, { status: 'error', error: outcome.error });
      });
      batch = [];
    };
    const takeSkips = (beforeRecord: number) => {
      while (skipped.length > 0 && skipped[0].records < beforeRecord) {
        const skip = skipped.shift()!;
        const line = lastLine + 1;
        lastLine = Math.max(skip.lines - crlfInFields, line);
        if (header === null) throw badHeader(`the CSV could not be read: ${skip.message}`);
        results.push({ line, status: 'error', error: `unreadable row: ${skip.message}`, mapping_id: null });
      }
    };

    try {
      for await (const { record, info } of parser as AsyncIterable<CsvRecord>) {
        takeSkips(info.records);
        const line = lastLine + 1;
        for (const field of record) crlfInFields += field.split('\r\n').length - 1;
        lastLine = info.lines - crlfInFields;
        if (record.every((field) => field.trim() === '')) continue;
        if (header === null) {
          header = headerOf(record);
          continue;
        }
        if (++rows > maxRows) throw new ImportLimitError(`the CSV has more than ${maxRows} rows (MAPPING_IMPORT_MAX_ROWS)`);
        if (record.length !== header.length) {
          results.push({ line, status: 'error', error: `expected ${header.length} columns, found ${record.length}`, mapping_id: null });
          continue;
        }
        const raw: Record<string, string> = {};
        CSV_COLUMNS.forEach((name, i) => (raw[name] = record[header![i]]));
        const parsed = parseMappingInput(raw);
        if (!parsed.ok) {
          results.push({ line, status: 'error', error: parsed.error, mapping_id: null });
          continue;
        }
        const result: ImportRowResult = { line, status: 'created', error: null, mapping_id: null };
        results.push(result);
        batch.push({ input: parsed.input, result });
        if (batch.length >= INSERT_BATCH) await flush();
      }
      takeSkips(Number.MAX_SAFE_INTEGER);
    } catch (err) {
      if (err instanceof BadRequestException) throw err;
      const code = (err as { code?: string }).code;
      const overLimit =
        err instanceof ImportLimitError
          ? err.message
          : code === 'CSV_MAX_RECORD_SIZE'
            ? `a record is longer than ${maxRecordBytes} characters (MAPPING_IMPORT_MAX_RECORD_BYTES)`
            : null;
      if (overLimit !== null) {
        await flush();
        const created = results.filter((r) => r.status === 'created').length;
        throw tooLarge(`${overLimit}; the ${created} mapping(s) of the rows before it were created`);
      }
      if (typeof code === 'string' && code.startsWith('CSV_')) throw badHeader(`the CSV could not be read: ${(err as Error).message}`);
      throw err;
    } finally {
      // A 400 leaves the upload unread; stop parsing it.
      if (!parser.destroyed && !parser.readableEnded) parser.destroy();
    }
    if (header === null) throw badHeader('the CSV is empty');
    await flush();
    const errors = results.filter((r) => r.status === 'error').length;
    return { created: results.length - errors, errors, items: results };
  }
}

/** The position of each expected column in the header row; the five names in any order, nothing else. */
function headerOf(record: string[]): number[] {
  const names = record.map((name) => name.trim().toLowerCase());
  const missing = CSV_COLUMNS.filter((c) => !names.includes(c));
  const unknown = names.filter((n) => !(CSV_COLUMNS as readonly string[]).includes(n));
  const repeated = names.filter((n, i) => names.indexOf(n) !== i);
  if (missing.length > 0 || unknown.length > 0 || repeated.length > 0) {
    const problems = [
      missing.length > 0 ? `missing ${missing.join(', ')}` : '',
      unknown.length > 0 ? `unknown ${unknown.map((u) => JSON.stringify(u.slice(0, 40))).join(', ')}` : '',
      repeated.length > 0 ? `repeated ${repeated.join(', ')}` : '',
    ].filter(Boolean);
    throw badHeader(`line 1 must be the header ${CSV_COLUMNS.join(',')} (${problems.join('; ')})`);
  }
  return CSV_COLUMNS.map((c) => names.indexOf(c));
}

function tooLarge(message: string): PayloadTooLargeException {
  return new PayloadTooLargeException({ statusCode: 413, message, error: 'Payload Too Large' });
}

function badHeader(message: string): BadRequestException {
  return new BadRequestException({ statusCode: 400, message, error: 'Bad Request' });
}
