/** What crm-sync knows of one of the service's projects, so that screens show its name beside its id. */
export interface KnownProject {
  projectId: string;
  name: string;
  customerName: string | null;
  customerEmail: string | null;
  customerPhone: string | null;
  jobNumber: string | null;

  /** When what is stored was true: the delivery's receipt, or the time of the P4 / P5 read. An older fact never replaces it. */
  seenAt: Date;
  updatedAt: Date;
}
