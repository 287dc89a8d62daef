import type { SimHandler, SimRequest, SimResponse } from '../common/sim-server.js';
import type { SimKeyedWrite } from './appointment-types.js';

const WRITES: ReadonlySet<string> = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);
/** Answers a retry should redo rather than repeat, as a CRM would not keep them either. */
const NOT_KEPT = (status: number) => status >= 500 || [408, 409, 429].includes(status);

interface KeptAnswer {
  method: string;
  path: string;
  response: SimResponse | null; // null while the first request is still being handled
}

/**
 * The Idempotency-Key behaviour of the contract: the first answer to a write with a key is kept, and a write with
 * the same key gets that answer again (marked `idempotent-replayed: true`) without being applied twice. The same
 * key on another method or path is refused (422); while the first is still being handled, a repeat gets 409.
 */
export class IdempotencyKeys {
  readonly writes: SimKeyedWrite[] = [];
  private readonly answers = new Map<string, KeptAnswer>();

  async handle(req: SimRequest, honoured: boolean, handler: SimHandler): Promise<SimResponse> {
    const header = req.headers['idempotency-key'];
    const key = Array.isArray(header) ? header[0] : header;
    if (!WRITES.has(req.method) || !key) return handler(req);
    const kept = honoured ? this.answers.get(key) : undefined;
    const replayed = kept?.response != null && kept.method === req.method && kept.path === req.path;
    this.writes.push({ key, method: req.method, path: req.path, replayed });
    if (kept) {
      if (kept.method !== req.method || kept.path !== req.path) {
        return { status: 422, body: { error: 'this Idempotency-Key was used for another request' } };
      }
      if (!kept.response) return { status: 409, body: { error: 'a request with this Idempotency-Key is in progress' } };
      return { ...kept.response, headers: { ...(kept.response.headers ?? {}), 'idempotent-replayed': 'true' } };
    }
    if (!honoured) return handler(req);
    this.answers.set(key, { method: req.method, path: req.path, response: null });
    let response: SimResponse;
    try {
      response = await handler(req);
    } catch (err) {
      this.answers.delete(key);
      throw err;
    }
    if (NOT_KEPT(response.status)) this.answers.delete(key);
    else this.answers.set(key, { method: req.method, path: req.path, response });
    return response;
  }
}
