/** Shapes of the service's v1 API (docs/service-api.md). Every id is an exact decimal string. */

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
  created_at: string;
  updated_at: string;
  job_number?: string;
  customer?: Customer;
  work_site_address?: Address;
  sales_rep?: SalesRep;
  tags: string[];
  archived: boolean;
}

export interface ProjectInput {
  name: string;
  customer?: Customer;
  job_number?: string;
  work_site_address?: Address;
  sales_rep?: SalesRep;
  tags?: string[];
}

export type Role = 'PROJECT_ADMIN' | 'PROJECT_COLLABORATOR' | 'PROJECT_VIEWER';

export interface Collaborator {
  email: string;
  role: Role;
}

export interface AddCollaboratorsResult {
  success_items: Collaborator[];
  fail_items: Array<{ data: Collaborator; message: string }>;
}

export interface DrawingListItem {
  id: string;
  name: string;
}

export interface Drawing {
  id: string;
  project_id: string;
  name: string;
  pdf_url: string | null;
  png_url: string | null;
  dxf_url: string | null;
  tags: string[];
}

export interface PricePartItem {
  name: string;
  sku: string;
  price: number;
  cost: number;
  quantity: number;
  unit: string;
}

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
  type: string;
  value?: unknown;
}

export interface TakeoffItem {
  quantity: number;
  sequence_number?: string;
  unit: string;
  attributes: TakeoffAttribute[];
}

export interface TakeoffResult {
  takeoff_items: Array<{ name: string; quantity: number; unit: string; sku: string; product_id: string; items: TakeoffItem[] }>;
}

export interface FieldDataResult {
  groups: Array<{ name: string; field_data: Array<{ name: string; type: string; value: unknown }> }>;
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
  approved_option?: { id?: string; drawing_id: string; drawing_version_id?: string };
  initial_proposal_id?: string;
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

export interface AssociationPair {
  appointment_id: string;
  project_id: string;
}

export interface BatchAssociateResult {
  successItems: AssociationPair[];
  /** A2's fail items, read from either the flat or the wrapped form. */
  failItems: Array<AssociationPair & { message: string }>;
}

export type RecordModule = 'Deals' | 'Quotes' | 'Leads' | 'Contacts';
export const RECORD_MODULES: readonly RecordModule[] = ['Deals', 'Quotes', 'Leads', 'Contacts'];

export interface Page {
  page?: number;
  perPage?: number;
}
