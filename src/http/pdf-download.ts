import { once } from 'node:events';
import { pipeline, Transform, type Readable } from 'node:stream';
import { OutboundError } from './outbound-error.js';
import type { OutboundHttp, OutboundResponse } from './outbound-http.js';
import { redactUrl } from './redact.js';

/** A download that is not a PDF, or is larger than allowed. Permanent: trying again fetches the same bytes. */
export class PdfRejectedError extends Error {
  constructor(
    readonly url: string,
    reason: string,
  ) {
    super(`PDF at ${redactUrl(url)} refused: ${reason}`);
    this.name = 'PdfRejectedError';
  }
}

export interface PdfStream {
  stream: Readable;
  /** From Content-Length, when the server sent one. */
  size: number | null;
  fileName: string;
}

const PDF_MAGIC = Buffer.from('%PDF-');

/**
 * Each chunk a transfer has passed on is garbage held outside the V8 heap, and V8 collects such memory only once
 * tens of MB have piled up: at loopback speed a single 50 MB PDF would raise the process's memory by some 30 MB for
 * good (the allocator keeps what it once held). A minor collection every few MB keeps that under 10 MB. It needs
 * `--expose-gc`, which the start commands pass; without it nothing is collected early.
 */
const COLLECT_EVERY_BYTES = 4 * 1024 * 1024;
const collectYoungGarbage = (globalThis as { gc?: (options: { type: 'minor' }) => void }).gc;

export interface PdfLimits {
  maxBytes: number;
  /** The whole download, from the request to its last byte (DOWNLOAD_DEADLINE_MS). */
  deadlineMs: number;
}

/**
 * Opens a PDF download as a stream, so that it can flow straight into an upload and memory stays flat whatever
 * its size. It is refused before a byte is passed on when the server announces more than `maxBytes` or the
 * first bytes are not a PDF header, and the stream errors as soon as more than `maxBytes` arrive or the deadline
 * passes: a server trickling a byte now and then would otherwise hold a worker for ever.
 * The URL is fetched without the service's credentials: it is a signed address, and may be anyone's host; where it
 * may go is the client's address policy (address-guard.ts).
 */
export async function openPdf(http: OutboundHttp, url: string, limits: PdfLimits, endpoint = 'PDF download'): Promise<PdfStream> {
  const { maxBytes, deadlineMs } = limits;
  if (!/^https?:\/\//i.test(url)) throw new PdfRejectedError(url, 'not an http(s) URL');
  const deadline = new AbortController();
  let limiter: Transform | null = null;
  const overdue = () => new PdfRejectedError(url, `not downloaded within ${deadlineMs} ms (DOWNLOAD_DEADLINE_MS)`);
  const timer = setTimeout(() => {
    limiter?.destroy(overdue());
    deadline.abort();
  }, deadlineMs);
  timer.unref();
  let response: OutboundResponse<Readable>;
  try {
    response = await http.request<Readable>({
      endpoint,
      method: 'GET',
      path: url,
      responseType: 'stream',
      headers: { accept: 'application/pdf, */*' },
      signal: deadline.signal,
    });
  } catch (err) {
    clearTimeout(timer);
    throw deadline.signal.aborted ? overdue() : err;
  }
  const source = response.data;
  source.once('close', () => clearTimeout(timer));
  const declared = Number(response.headers['content-length']);
  const size = Number.isFinite(declared) && declared >= 0 ? declared : null;
  if (size !== null && size > maxBytes) {
    clearTimeout(timer);
    source.destroy();
    throw new PdfRejectedError(url, `${size} bytes announced, over the ${maxBytes}-byte cap`);
  }
  let head: Buffer;
  try {
    head = await peek(source, PDF_MAGIC.length);
  } catch (err) {
    clearTimeout(timer);
    source.destroy();
    if (deadline.signal.aborted) throw overdue();
    throw new OutboundError(http.system, endpoint, 'network', response.status, `download broke off: ${(err as Error).message}`);
  }
  if (!head.subarray(0, PDF_MAGIC.length).equals(PDF_MAGIC)) {
    clearTimeout(timer);
    source.destroy();
    throw new PdfRejectedError(url, 'the bytes are not a PDF');
  }
  let seen = 0;
  limiter = new Transform({
    transform(chunk: Buffer, _encoding, done) {
      const before = seen;
      seen += chunk.length;
      if (collectYoungGarbage && Math.floor(seen / COLLECT_EVERY_BYTES) !== Math.floor(before / COLLECT_EVERY_BYTES)) collectYoungGarbage({ type: 'minor' });
      if (seen > maxBytes) done(new PdfRejectedError(url, `more than the ${maxBytes}-byte cap`));
      else done(null, chunk);
    },
  });
  limiter.once('close', () => clearTimeout(timer));
  pipeline(source, limiter, () => undefined);
  return { stream: limiter, size, fileName: fileNameOf(url) };
}

/** Reads the first `n` bytes and puts them back, so the stream still starts at byte 0. */
async function peek(stream: Readable, n: number): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let length = 0;
  while (length < n) {
    const chunk = stream.read() as Buffer | null;
    if (chunk !== null) {
      chunks.push(chunk);
      length += chunk.length;
      continue;
    }
    if (stream.readableEnded) break;
    await Promise.race([once(stream, 'readable'), once(stream, 'end')]);
  }
  const head = Buffer.concat(chunks);
  if (head.length > 0) stream.unshift(head);
  return head;
}

function fileNameOf(url: string): string {
  try {
    const last = decodeURIComponent(new URL(url).pathname.split('/').pop() ?? '');
    return /\.pdf$/i.test(last) ? last : 'document.pdf';
  } catch {
    return 'document.pdf';
  }
}
