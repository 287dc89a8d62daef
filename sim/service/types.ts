/**
 * The service's resource shapes have one source: the daemon's (src/service-api/service-api.types.ts, as
 * docs/service-api.md writes them), re-exported here. Only what the simulator adds is written here: how it keeps a
 * drawing's versions, and the webhook payload parts it sends (the daemon reads those through its own, more tolerant
 * event types in src/domain/service-events.ts).
 */
import type { Drawing, FieldDataResult, LineItemsResult, Proposal, TakeoffResult } from '../../src/service-api/service-api.types.js';

export type {
  Address,
  Collaborator,
  Customer,
  FieldDataResult,
  LineItem,
  LineItemsResult,
  Payment,
  PricePartItem,
  Product,
  Project,
  Proposal,
  ProposalStatus,
  ProposalTemplate,
  Role,
  SalesRep,
  TakeoffAttribute,
  TakeoffItem,
  TakeoffResult,
  TaxItem,
} from '../../src/service-api/service-api.types.js';

/** D1's answer and the `data` of drawing.created / drawing.updated (ids as strings). */
export type DrawingView = Drawing;

export type ApprovedOption = NonNullable<Proposal['approved_option']>;

/** One option of proposal.sent, as the simulator sends it (the total a number). */
export interface ProposalOption {
  id: string;
  name: string;
  drawing_id: string;
  drawing_version_id: string;
  total: number;
  pdf_url: string;
}

/** The content of one drawing version. */
export interface DrawingVersion {
  versionId: string;
  pdf: Buffer;
  lineItems: LineItemsResult;
  takeoff: TakeoffResult;
  fieldData: FieldDataResult;
}

/** A drawing as the simulator keeps it: the latest version's content, plus every earlier version. */
export interface SimDrawing extends DrawingVersion {
  id: string;
  projectId: string;
  name: string;
  tags: string[];
  /** Every version, oldest first, the latest included. */
  versions: DrawingVersion[];
}
