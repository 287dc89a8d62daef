import { PayloadTooLargeException } from '@nestjs/common';
import { Readable } from 'node:stream';
import { loadConfig } from '../config/app-config.js';
import type { MappingInput } from './dto/mapping-input.dto.js';
import { CSV_COLUMNS, MappingImportService } from './mapping-import.service.js';
import type { MappingsService } from './mappings.service.js';

const HEADER = `${CSV_COLUMNS.join(',')}\n`;
const row = (i: number) => `appointment,APT-${i},,,${36029621652695017n + BigInt(i)}\n`;

function importer(env: Record<string, string>) {
  const inserted: MappingInput[] = [];
  const mappings = {
    createMany: (inputs: MappingInput[]) => {
      inserted.push(...inputs);
      return Promise.resolve(inputs.map((input, i) => ({ status: 'created', mapping: { id: String(inserted.length - inputs.length + i + 1), ...input } })));
    },
  } as unknown as MappingsService;
  const config = loadConfig({ ADMIN_TOKEN: 'admin-token-long-enough', ...env });
  return { service: new MappingImportService(mappings, config), inserted };
}

async function refusal(promise: Promise<unknown>): Promise<{ status: number; message: string }> {
  const err = await promise.then(
    () => null,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(PayloadTooLargeException);
  const answer = (err as PayloadTooLargeException).getResponse() as { statusCode: number; message: string };
  return { status: answer.statusCode, message: answer.message };
}

describe('CSV import limits', () => {
  it('refuses an upload announcing more than MAPPING_IMPORT_MAX_BYTES before reading it', async () => {
    const { service, inserted } = importer({ MAPPING_IMPORT_MAX_BYTES: '2048' });
    const body = Readable.from([Buffer.from(HEADER + row(1))]);
    const answer = await refusal(service.importCsv(body, 5000));
    expect(answer).toEqual({ status: 413, message: 'the CSV is larger than 2048 bytes (MAPPING_IMPORT_MAX_BYTES)' });
    expect(inserted).toHaveLength(0);
  });

  it('stops a streamed upload at MAPPING_IMPORT_MAX_BYTES', async () => {
    const { service } = importer({ MAPPING_IMPORT_MAX_BYTES: '2048' });
    const rows = Array.from({ length: 200 }, (_, i) => row(i)).join('');
    const answer = await refusal(service.importCsv(Readable.from([Buffer.from(HEADER), Buffer.from(rows)])));
    expect(answer.status).toBe(413);
    expect(answer.message).toMatch(/^the CSV is larger than 2048 bytes \(MAPPING_IMPORT_MAX_BYTES\); the 0 mapping\(s\)/);
  });

  it('stops at MAPPING_IMPORT_MAX_ROWS, keeping the rows before it', async () => {
    const { service, inserted } = importer({ MAPPING_IMPORT_MAX_ROWS: '3' });
    const csv = HEADER + [1, 2, 3, 4, 5].map(row).join('');
    const answer = await refusal(service.importCsv(Readable.from([Buffer.from(csv)])));
    expect(answer.message).toBe('the CSV has more than 3 rows (MAPPING_IMPORT_MAX_ROWS); the 3 mapping(s) of the rows before it were created');
    expect(inserted.map((m) => m.appointmentId)).toEqual(['APT-1', 'APT-2', 'APT-3']);
  });

  it('refuses a record longer than MAPPING_IMPORT_MAX_RECORD_BYTES', async () => {
    const { service } = importer({ MAPPING_IMPORT_MAX_RECORD_BYTES: '100' });
    const csv = `${HEADER}${row(1)}appointment,"${'x'.repeat(500)}",,,1\n`;
    const answer = await refusal(service.importCsv(Readable.from([Buffer.from(csv)])));
    expect(answer.message).toMatch(/longer than 100 characters \(MAPPING_IMPORT_MAX_RECORD_BYTES\)/);
  });

  it('imports a file within every limit', async () => {
    const { service } = importer({ MAPPING_IMPORT_MAX_ROWS: '3', MAPPING_IMPORT_MAX_BYTES: '2048' });
    const result = await service.importCsv(Readable.from([Buffer.from(HEADER + [1, 2, 3].map(row).join(''))]));
    expect(result).toMatchObject({ created: 3, errors: 0 });
  });
});
