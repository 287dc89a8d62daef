import type { IncomingHttpHeaders } from 'node:http';
import busboy from 'busboy';

export interface MultipartFile {
  field: string;
  filename: string;
  contentType: string;
  bytes: Buffer;
}

export interface MultipartBody {
  files: MultipartFile[];
  fields: Record<string, string>;
}

/** Parses an already buffered multipart body; a body that is not multipart yields no parts rather than an error. */
export function parseMultipart(headers: IncomingHttpHeaders, body: Buffer): Promise<MultipartBody> {
  const result: MultipartBody = { files: [], fields: {} };
  if (
    !String(headers['content-type'] ?? '')
      .toLowerCase()
      .startsWith('multipart/form-data')
  ) {
    return Promise.resolve(result);
  }
  return new Promise((resolve, reject) => {
    const parser = busboy({ headers });
    parser.on('file', (field, stream, info) => {
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('end', () => result.files.push({ field, filename: info.filename ?? '', contentType: info.mimeType, bytes: Buffer.concat(chunks) }));
    });
    parser.on('field', (name, value) => (result.fields[name] = value));
    parser.on('close', () => resolve(result));
    parser.on('error', reject);
    parser.end(body);
  });
}
