import { createReadStream, createWriteStream } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Transform, type Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';

/** A body larger than the spool may hold. */
export class SpoolTooLargeError extends Error {
  constructor(readonly maxBytes: number) {
    super(`PDF of unknown size is more than the ${maxBytes}-byte cap`);
    this.name = 'SpoolTooLargeError';
  }
}

/** A stream written to a temp file, to learn its size before it is sent; `remove` deletes the file. */
export interface Spooled {
  size: number;
  open(): Readable;
  remove(): Promise<void>;
}

/**
 * Writes a stream of unknown length to a file of its own under the temp directory (`crm-sync-upload-*`), at most
 * `maxBytes`, so that an upload can announce its Content-Length. The file is deleted when spooling fails, and by
 * `remove` afterwards.
 */
export async function spoolToFile(source: Readable, maxBytes: number): Promise<Spooled> {
  const dir = await mkdtemp(join(tmpdir(), 'crm-sync-upload-'));
  const remove = () => rm(dir, { recursive: true, force: true });
  const path = join(dir, 'body');
  let size = 0;
  const counter = new Transform({
    transform(chunk: Buffer, _encoding, done) {
      size += chunk.length;
      if (size > maxBytes) done(new SpoolTooLargeError(maxBytes));
      else done(null, chunk);
    },
  });
  try {
    await pipeline(source, counter, createWriteStream(path));
  } catch (err) {
    source.destroy();
    await remove();
    throw err;
  }
  return { size, open: () => createReadStream(path), remove };
}
