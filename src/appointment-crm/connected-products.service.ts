import { Injectable } from '@nestjs/common';
import { ServiceApiClient } from '../service-api/service-api.client.js';

const TTL_MS = 10 * 60_000;

/**
 * A3 answers, cached for a while: a sale lists the same products again and again, and a connection changes
 * rarely (it is made by hand in the web UI). "Not connected" is cached too.
 */
@Injectable()
export class ConnectedProductsService {
  private readonly cache = new Map<string, { externalId: Promise<string | null>; expiresAt: number }>();

  constructor(private readonly service: ServiceApiClient) {}

  externalIdOf(productId: string): Promise<string | null> {
    const cached = this.cache.get(productId);
    if (cached && cached.expiresAt > Date.now()) return cached.externalId;
    const externalId = this.service.getConnectedProduct(productId);
    const entry = { externalId, expiresAt: Date.now() + TTL_MS };
    this.cache.set(productId, entry);
    // A failed lookup is not an answer: forget it so the next try asks again.
    externalId.catch(() => {
      if (this.cache.get(productId) === entry) this.cache.delete(productId);
    });
    return externalId;
  }
}
