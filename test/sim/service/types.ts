/** Resource shapes of the service, as in docs/service-api.md. Ids are exact decimal strings here. */

export interface Address {
  street?: string;
  city?: string;
  county?: string;
  state?: string;
  zip_code?: string;
}

export interface Customer {
  name?: string;
  phone?: string;
  second_phone?: string;
  email?: string;
  second_email?: string;
  address?: Address;
}

export interface SalesRep {
  name?: string;
  email?: string;
  phone?: string;
}

export interface Project {
  id: string;
  name: string;
  /** `YYYY-MM-DDTHH:MM:SS`, UTC. */
  created_at: string;
  updated_at: string;
  job_number?: string;
  customer?: Customer;
  work_site_address?: Address;
  sales_rep?: SalesRep;
  tags: string[];
  archived: boolean;
}

export type Role = 'PROJECT_ADMIN' | 'PROJECT_COLLABORATOR' | 'PROJECT_VIEWER';

export interface Collaborator {
  email: string;
  role: Role;
}

export interface PricePartItem {
  name: string;
  sku: string;
  price: number;
  cost: number;
  quantity: number;
  unit: string;
}

/** Custom price items omit price, sku, unit, product_id and price_part_items. */
export interface LineItem {
  name: string;
  quantity: number;
  total: number;
  price?: number | null;
  cost?: number | null;
  sku?: string | null;
  unit?: string | null;
  product_id?: string | null;
  price_part_items?: PricePartItem[] | null;
}

export interface TaxItem {
  name: string;
  total: number;
}

export interface LineItemsResult {
  line_items: LineItem[];
  subtotal: number;
  discount: number;
  discount_description: string;
  markup: number;
  markup_description: string;
  taxes: TaxItem[];
  total: number;
  drawing_version_id: string;
}

export interface TakeoffAttribute {
  name: string;
  type: 'TEXT' | 'PHOTO' | 'CHECKBOX' | 'DATE';
  value?: string | string[] | boolean | null;
}

export interface TakeoffItem {
  quantity: number;
  sequence_number?: string;
  unit: string;
  attributes: TakeoffAttribute[];
}

export interface TakeoffItemByProduct {
  name: string;
  quantity: number;
  unit: string;
  sku: string;
  product_id: string;
  items: TakeoffItem[];
}

export interface TakeoffResult {
  takeoff_items: TakeoffItemByProduct[];
}

export interface FieldData {
  name: string;
  type: string;
  value: string | boolean | string[] | null;
}

export interface FieldDataResult {
  groups: { name: string; field_data: FieldData[] }[];
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

/** D1's answer and the `data` of drawing.created / drawing.updated (ids as strings). */
export interface DrawingView {
  id: string;
  project_id: string;
  name: string;
  pdf_url: string | null;
  png_url: string | null;
  dxf_url: string | null;
  tags: string[];
}

export interface Product {
  id: string;
  name: string;
  sku: string;
  description: string;
  cost: number;
}

export interface ProposalTemplate {
  id: string;
  name: string;
}

export type ProposalStatus = 'DRAFT' | 'PENDING' | 'VOID' | 'LOST' | 'APPROVED' | 'EXPIRED';

export interface ApprovedOption {
  id?: string;
  drawing_id: string;
  drawing_version_id?: string;
}

export interface Proposal {
  proposal_id: string;
  project_id: string;
  name: string;
  status: ProposalStatus;
  sales_representative: string;
  contact_email: string;
  customer_name: string;
  customer_email: string;
  document_number: string;
  close_note?: string;
  total?: number;
  pdf_url?: string;
  approved_option?: ApprovedOption;
  initial_proposal_id?: string;
}

export interface ProposalOption {
  id: string;
  name: string;
  drawing_id: string;
  drawing_version_id: string;
  total: number;
  pdf_url: string;
}

export interface Payment {
  paid_amount: number;
  pay_channel: 'service_payment' | 'mark_as_paid';
  paid_time?: string;
  paid_date?: string;
  payment_method: string;
  status: 'succeeded' | 'returned';
  refunded_amount?: number;
}
