// Written by `npm run api-types` from the OpenAPI document the daemon serves at /docs; do not edit.
// `npm run typecheck` fails when it differs from what the daemon says.

export interface paths {
  '/admin/session': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /** Signs in: exchanges a token for the session cookie (12 hours): `__Host-crm_sync_session` over https, `crm_sync_session` over plain http. */
    post: operations['SessionController_login'];
    /** Signs out: ends every session of the signed-in name, on every replica, and clears the cookie. */
    delete: operations['SessionController_logout'];
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/alerts': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** Alerts sent, failed (with the reason) or recorded without an ALERT_WEBHOOK_URL; newest first. */
    get: operations['AlertsController_list'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/alerts/test': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /** Sends a test alert now, whatever the throttle, and answers what happened. */
    post: operations['AlertsController_test'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/appointment-crm/send': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    post: operations['AppointmentSendController_send'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/automations': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * Each CRM's automation: its settings, when its changes were last read (`last_run_at`), how far (`cursor`), the last error.
     * @description The record CRM's also says how it learns of changes: `notifications.state` `notified` (Zoho's notification channel, until `channel_expiry`) or `polling` (with the `reason`, e.g. PUBLIC_URL unset).
     */
    get: operations['AutomationsController_get'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/automations/{crm}/run': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /**
     * Reads the CRM's new and changed records now (`appointment-crm` or `record-crm`); answers the read's sync log entry (kind poll_changes).
     * @description A read still waiting to start is joined. Skipped when project creation is off for that CRM, or when another read is running.
     */
    post: operations['AutomationsController_run'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/automations/appointment-crm': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    /**
     * Sets the appointment CRM's automation; a field left out keeps its value.
     * @description `create_projects`, `statuses` (empty: any), `owner` (e-mail; required with create_projects), `owner_from_sales_rep`, `match_on`, `auto_accept`.
     */
    put: operations['AutomationsController_putAppointmentCrm'];
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/automations/record-crm': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    /**
     * Sets the record CRM's (Zoho's) automation; a field left out keeps its value.
     * @description `create_projects`, `module`, `field`, `values`, `owner`, `owner_from_sales_rep`, `match_on`, `match_fields`, `auto_accept`, `deal_stage_on_approved`, `deal_stage_on_lost`, `quote_line_items`, `fallback_product_id`, `trigger` (which of `workflow`, `approval`, `blueprint` crm-sync's writes fire; all three: as Zoho does when none is sent).
     */
    put: operations['AutomationsController_putRecordCrm'];
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/connections': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * Every connection: state (connected, degraded with the reason, not_configured), where set, last check, settings without secrets.
     * @description Admins see each connection's URLs as saved; viewers and operators see the base URL's origin only (no userinfo, path or query, which may hold a tenant's secret) and URL credentials taken out of details.
     */
    get: operations['ConnectionsController_list'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/connections/{name}': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    post?: never;
    /** Forgets the console's settings of a connection; a Zoho refresh token is revoked first. */
    delete: operations['ConnectionsController_remove'];
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/connections/{name}/test': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /** Tests the connection in effect with one harmless call; records the outcome as its last check. */
    post: operations['ConnectionsController_test'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/connections/appointment-crm': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    /** Sets the appointment CRM connection; tested first, as the service. */
    put: operations['ConnectionsController_putAppointmentCrm'];
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/connections/appointment-crm/fields': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** One object's fields as the org's describe gives them (name, label, type, and for a lookup its relationship name and target): a step of a field path in the console's picker. */
    get: operations['SalesforceConnectionController_fields'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/connections/appointment-crm/names': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    /** Sets names of needs (and the Sold value, preset, who pushes); checked against the org first: a name it lacks answers 422 and nothing is saved. */
    put: operations['SalesforceConnectionController_names'];
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/connections/appointment-crm/salesforce': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    /**
     * Starts connecting a Salesforce org: answers `{ authorize_url }`, the org's consent page, to open in the same browser.
     * @description The callback is `GET /oauth/appointment-crm/callback`; the answer sets a short-lived cookie binding the consent to this browser.
     */
    put: operations['SalesforceConnectionController_start'];
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/connections/appointment-crm/schema': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * The table of needs: each object and field crm-sync uses, its name, whether the org has it (describe), and the org's fitting fields.
     * @description For admins. Each reading costs the org's daily API allowance 4 to 7 describe calls, so the last one of the connection in effect is answered: read when first asked, and again by each check (Test, and the one every 15 minutes) and after a change of the connection. Within `SEARCH_MAX_PER_USER` a `SEARCH_WINDOW_SECONDS` window per user (counted apart from the searches).
     */
    get: operations['SalesforceConnectionController_schema'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/connections/record-crm': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    /**
     * Starts connecting Zoho CRM: answers `{ authorize_url }`, Zoho's consent page, to open in the same browser.
     * @description The answer sets a short-lived cookie that binds the consent to this browser; the callback (`GET /admin/connections/record-crm/callback`) needs it.
     */
    put: operations['ConnectionsController_putRecordCrm'];
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/connections/service': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    /** Sets the service connection; tested (R2) first: a failing test answers 422 with the reason and saves nothing. */
    put: operations['ConnectionsController_putService'];
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/connections/webhooks': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    /** Sets the webhooks' secrets (several during a rotation; `…abcd` keeps a current one); answers the three addresses to enter in the service. */
    put: operations['ConnectionsController_putWebhooks'];
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/crm-metadata/appointment-crm/statuses': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * The appointment statuses: as the appointment CRM lists them (`GET /statuses`), else the statuses its reads have seen.
     * @description `{ source: "crm" | "seen", items: [{ value, label }] }`: `seen` when the CRM does not list them (404), so typing stays open.
     */
    get: operations['CrmMetadataController_appointmentStatuses'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/crm-metadata/record-crm/fields': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * A Zoho module's fields, from Zoho (`GET /crm/v8/settings/fields?module=`, kept a minute).
     * @description `{ items: [{ api_name, label, data_type, pick_list: [{ value, label }] | null }] }`, in Zoho’s order.
     */
    get: operations['CrmMetadataController_moduleFields'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/crm-metadata/record-crm/modules': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * The Zoho modules crm-sync can automate (Deals, Quotes, Leads, Contacts), by the org’s labels (`GET /crm/v8/settings/modules`, kept a minute).
     * @description `{ items: [{ api_name, label, in_org }] }`: `in_org` false for a module the org lacks or does not open to the API.
     */
    get: operations['CrmMetadataController_modules'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/crm-metadata/record-crm/pipelines': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * The Deals’ pipelines with their stages: each layout’s (`GET /crm/v8/settings/layouts?module=Deals`), then its pipelines (`GET /crm/v8/settings/pipeline?layout_id=`).
     * @description `{ items: [{ layout: { id, name }, name, default, stages: [{ value, sequence, forecast_type }] }] }`, stages in their pipeline’s order (`forecast_type`: Open, Closed Won, Closed Lost).
     */
    get: operations['CrmMetadataController_pipelines'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/deliveries': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * The webhook inbox, newest first; filter by endpoint, event, status, project and receipt time.
     * @description `status=duplicate` lists the deliveries the service sent more than once (`duplicates > 0`), whatever their status.
     */
    get: operations['DeliveriesController_list'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/deliveries/{id}': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** One delivery: its raw body as received (ids exact), the body parsed (ids beyond 2^53 as strings), and the actions it produced. */
    get: operations['DeliveriesController_get'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/deliveries/{id}/replay': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /**
     * Routes a stored delivery (routed or failed) again now.
     * @description Routing runs in the request; the actions it records are enqueued by the relay. Actions derived from the delivery (export prompts, drawing pushes) are recorded anew and run again; actions that happen once per fact (approvals, payments) stay the entries already recorded. Answers the ids of every entry the routing named, new or existing.
     */
    post: operations['DeliveriesController_replay'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/deliveries/filters': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** The values of the Endpoint and Status filters: every webhook endpoint and every delivery status. */
    get: operations['DeliveriesController_filters'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/funnel': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * Per CRM: records read, qualifying, projects created and mapped, drawings pushed, proposals exported, approved, written to the CRM, failed or waiting.
     * @description Computed from what crm-sync stored (the sync log, the mappings, the reads’ hourly counts), never from calls to the CRMs. Each number carries `link`, the admin API query listing the items behind it; amounts are exact decimal text. See docs/operations.md, "The funnel".
     */
    get: operations['FunnelController_get'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/mappings': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** Mappings, newest first; filter by CRM, status and project. */
    get: operations['MappingsController_list'];
    put?: never;
    /**
     * Creates one mapping, or many as `{ "items": [...] }`.
     * @description One object: 201 with the mapping, 409 naming the mapping in the way, 400 naming the field. A batch is not one transaction: every item is created or refused on its own, and the answer is 200 when every item was created, 207 when some were refused, 422 when all were, each with `{ created, errors, items }`, per item `{ index, status: "created" | "error", mapping?, error?, existing? }`. Ids may be strings or JSON numbers.
     */
    post: operations['MappingsController_create'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/mappings/{id}': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    post?: never;
    /** Removes a mapping (an association the service already made stays on the service's side). */
    delete: operations['MappingsController_remove'];
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/mappings/associate': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /**
     * Starts associating every pending mapping with the service now.
     * @description Appointment mappings go in A2 chunks of at most 100, record mappings one C1 call each; answers the sync log entries created.
     */
    post: operations['MappingsController_associate'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/mappings/import': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /**
     * Imports mappings from CSV (streamed).
     * @description Header row `crm,appointment_id,record_crm_module,record_crm_record_id,project_id` (400 when missing or wrong). Good rows are created, bad ones refused; the answer gives per row `{ line, status: "created" | "error", error, mapping_id }`, `line` being the physical line where the row starts (the header is line 1). Blank lines are passed over.
     */
    post: operations['MappingsController_import'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/me': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** Who the token or session is: `{ name, role }`. */
    get: operations['SessionController_me'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/overview': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * The dashboard: actions by status and kind, success rate, finished actions per hour, oldest queued, deliveries waiting, connections.
     * @description Status counts and the hourly series count actions by their last change (a finished action by when it finished); kind counts by creation. Hours are UTC, from the hour the window starts in to the current one, zero-filled.
     */
    get: operations['OverviewController_overview'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/projects/{project_id}': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** One project: its mappings, its webhook deliveries (newest 100) and its actions (newest 200, chains linked by parent_id and grouped in chains). */
    get: operations['ProjectsController_project'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/reconcile': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /** Starts a reconciliation pass now (`scope`: `changes`, the default, or `full`); answers its id (a sync log entry of kind reconcile). */
    post: operations['ReconcileController_start'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/revenue/check': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /** Starts a pass of the revenue check now (`scope`: `changes`, the default, or `full`); answers its sync log id. */
    post: operations['RevenueController_start'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/revenue/drifts': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** Revenue drifts, newest first: the service, what crm-sync wrote and the CRM now, side by side. */
    get: operations['RevenueController_list'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/revenue/drifts/{id}/accept': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /** Accepts the CRM's value: the difference raises nothing again until the service's value changes. */
    post: operations['RevenueController_accept'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/revenue/drifts/{id}/heal': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /** Writes the service's value again through the normal push (sync log, fences, read-back); answers its sync log id. */
    post: operations['RevenueController_heal'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/revenue/drifts/accept': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /** Accepts the CRM's values of the open drifts a filter takes (oldest first, at most 500). */
    post: operations['RevenueController_acceptMany'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/revenue/drifts/heal': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /** Heals the open drifts a filter takes (oldest first, at most 500): each writes the service's value again. */
    post: operations['RevenueController_healMany'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/revenue/summary': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** Per CRM: approved proposals in agreement with the service and drifted, with their totals; the last pass of the check. */
    get: operations['RevenueController_agreement'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/search/crm-records': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * Records of a CRM matching q, by that CRM's own search, at most 20.
     * @description Appointment CRM: `GET /appointments?q=`. Zoho CRM: `GET /crm/v8/{module}/search?word=` (module required).
     */
    get: operations['SearchController_crmRecords'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/search/projects': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * Projects whose name contains q (the service's P5), newest first, at most 20.
     * @description Each call is one P5 call, within the service's shared rate cap; the projects found are kept, so their names show elsewhere.
     */
    get: operations['SearchController_projects'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/settings': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** Retention and alert settings (the alert URL as its host only). */
    get: operations['AlertsController_settings'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/suggestions': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * Suggested mappings, newest first (open ones by default).
     * @description Open suggestions whose project was mapped meanwhile (by anyone) are closed first, so none is listed open.
     */
    get: operations['SuggestionsController_list'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/suggestions/{id}/accept': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /** Maps the chosen candidate (`{ "candidate": "<id>" }`, optional when there is one) and starts its association. */
    post: operations['SuggestionsController_accept'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/suggestions/{id}/dismiss': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /** Closes an open suggestion for good: its project is not suggested in that CRM again. */
    post: operations['SuggestionsController_dismiss'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/sync-logs': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** The sync log, newest first; filter by status, kind, project, CRM and creation time. */
    get: operations['SyncLogsController_list'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/sync-logs/{id}': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** One entry with its error, attempts and the outbound HTTP calls of every run, in order. */
    get: operations['SyncLogsController_get'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/sync-logs/{id}/retry': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /** Runs a failed action again; only a failed entry can be retried. */
    post: operations['SyncLogsController_retry'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/sync-logs/count': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** How many failed entries match the filters, and how many one bulk retry would retry (the console asks before retrying). */
    get: operations['BulkRetryController_count'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/sync-logs/filters': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** The values of the Kind and Status filters: every action kind and every status. */
    get: operations['SyncLogsController_filters'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/sync-logs/retry': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /**
     * Retries every failed entry matching the list's filters (status=failed implied), the oldest 10000 per call.
     * @description `dry_run=true` only counts (as GET /api/sync-logs/count). `more: true` says that more than 10000 matched: call again for the rest.
     */
    post: operations['BulkRetryController_retry'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/health': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** Liveness: the process answers. */
    get: operations['HealthController_live'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/health/ready': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** Readiness: Postgres (schema migrated) and Redis reachable; 503 naming what is down. */
    get: operations['HealthController_ready'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/webhooks/appointment-crm/export-prompt': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /** Appointment CRM export-prompt webhook, signed with WEBHOOK_SECRETS_APPOINTMENT_PROMPT. */
    post: operations['WebhooksController_appointmentPrompt'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/webhooks/events': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /** Events webhook ({event, data}), signed with WEBHOOK_SECRETS_EVENTS. */
    post: operations['WebhooksController_events'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/webhooks/record-crm/export-prompt': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /** Record CRM export-prompt webhook, signed with WEBHOOK_SECRETS_RECORD_PROMPT. */
    post: operations['WebhooksController_recordPrompt'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
}
export type webhooks = Record<string, never>;
export interface components {
  schemas: {
    AcceptSuggestionDto: {
      /**
       * @description The candidate to map (its id); may be left out when there is only one.
       * @example 4150868000004357001
       */
      candidate?: string;
    };
    /** @enum {string} */
    ActionKind:
      | 'associate'
      | 'associate_project'
      | 'reconcile'
      | 'revenue_check'
      | 'push_drawings'
      | 'push_proposal_pdf'
      | 'push_line_items'
      | 'set_status'
      | 'add_note'
      | 'attach_pdf'
      | 'update_deal'
      | 'push_quote'
      | 'check_service_push'
      | 'create_project'
      | 'associate_automated'
      | 'poll_changes'
      | 'suggest_mapping'
      | 'auto_map'
      | 'route_delivery'
      | 'admin_write';
    AlertView: {
      count: number;
      /** Format: date-time */
      created_at: string;
      entries: string[];
      error: string | null;
      http_status: number | null;
      id: string;
      kind: string;
      /** Format: date-time */
      sent_at: string | null;
      status: string;
      text: string | null;
    };
    AppointmentCrmConnectionDto: {
      /** @description The bearer key of the appointment CRM. Never returned; only its last 4 characters. */
      api_key: string;
      /**
       * Format: uri
       * @example https://crm.example.com/api
       */
      base_url: string;
    };
    BulkDecisionView: {
      /** @description The drifts decided. */
      drift_ids: string[];
      /** @description Their heals' sync log entries (heal only). */
      sync_log_ids: string[];
    };
    CandidateView: {
      /** @example 4150868000004357001 */
      id: string;
      /** @description What matched the project. */
      matched_on: ('job_number' | 'email' | 'phone')[];
      /**
       * @description The Zoho module; null for an appointment.
       * @enum {string|null}
       */
      module: 'Deals' | 'Quotes' | 'Leads' | 'Contacts' | null;
      /** @example Ana Ruiz */
      name: string | null;
      /** @description Whether the record's person and the project's customer have alike names. */
      names_alike: boolean;
      /** @description Matched keys another project or record holds too: never enough to map without review. */
      shared_on: ('job_number' | 'email' | 'phone')[];
      /** @description Whether auto_accept may map it without review (an exact job number, or e-mail and phone with alike names, none shared). */
      strong: boolean;
      /** @description Where the record opens in its CRM; null when not known. */
      web_url: string | null;
    };
    ChainView: {
      /** @description The chain, parents before children, siblings in creation order. */
      ids: string[];
      /** @description The first action of the chain (an action whose parent is not among the listed ones). */
      root_id: string;
    };
    CrmRecordHitView: {
      /** @description What else tells it apart: job number, e-mail, phone, date, stage. */
      detail: string | null;
      /** @example 4150868000004357001 */
      id: string;
      /**
       * @description The Zoho module; null for an appointment.
       * @enum {string|null}
       */
      module: 'Deals' | 'Quotes' | 'Leads' | 'Contacts' | 'Products' | null;
      /** @description The appointment's customer, or the record's name. */
      name: string | null;
    };
    DealRevenueView: {
      /**
       * @description Amount as last written, exact decimal text.
       * @example 626.40
       */
      amount: string | null;
      /** @example 2026-11-25 */
      closing_date: string | null;
      /** @example 36029621652695101 */
      proposal_id: string;
      /**
       * @description Stage as last written (null: never written).
       * @example Closed Won
       */
      stage: string | null;
      /** @description The update_deal entry that wrote it. */
      sync_log_id: string;
      /** @example Deals/4150868000005277036 */
      target: string;
      /** @description Where the Deal opens in Zoho; null when not known. */
      web_url: string | null;
      /** Format: date-time */
      written_at: string;
    };
    DeliveryDetailView: {
      /** @description The actions routing (and replays) recorded for it, oldest first. */
      actions: components['schemas']['SyncLogEntryView'][];
      /** @description Failed routing attempts. */
      attempts: number;
      /** @description The body exactly as received (UTF-8 text); below the admin role, URL query strings and userinfo replaced by `?…` and `…@`. */
      body: string;
      /** @description How many equal deliveries the service sent again within the dedupe window. */
      duplicates: number;
      /** @enum {string} */
      endpoint: 'events' | 'appointment-prompt' | 'record-prompt';
      error: string | null;
      /** @example drawing.created */
      event: string | null;
      /** @example 42 */
      id: string;
      /** @description The body parsed, integers beyond 2^53 as exact decimal strings; null when not JSON. */
      json: Record<string, never> | null;
      /** @description The project routing found it to concern. */
      project_id: string | null;
      /** @description That project's name; null while unknown. */
      project_name: string | null;
      /** Format: date-time */
      received_at: string;
      /** @description How many times an admin replayed it. */
      replays: number;
      /** Format: date-time */
      routed_at: string | null;
      /** @enum {string} */
      status: 'received' | 'routed' | 'ignored' | 'failed';
    };
    DeliveryFilterChoicesView: {
      endpoints: components['schemas']['WebhookEndpoint'][];
      statuses: components['schemas']['DeliveryStatus'][];
    };
    /** @enum {string} */
    DeliveryStatus: 'received' | 'routed' | 'ignored' | 'failed' | 'duplicate';
    DeliveryView: {
      /** @description Failed routing attempts. */
      attempts: number;
      /** @description How many equal deliveries the service sent again within the dedupe window. */
      duplicates: number;
      /** @enum {string} */
      endpoint: 'events' | 'appointment-prompt' | 'record-prompt';
      error: string | null;
      /** @example drawing.created */
      event: string | null;
      /** @example 42 */
      id: string;
      /** @description The project routing found it to concern. */
      project_id: string | null;
      /** @description That project's name; null while unknown. */
      project_name: string | null;
      /** Format: date-time */
      received_at: string;
      /** @description How many times an admin replayed it. */
      replays: number;
      /** Format: date-time */
      routed_at: string | null;
      /** @enum {string} */
      status: 'received' | 'routed' | 'ignored' | 'failed';
    };
    DriftFilterDto: {
      /** @enum {string} */
      crm?: 'appointment' | 'record';
      kind?: components['schemas']['DriftKind'];
      /** @description The service's project id (exact decimal text). */
      project_id?: string;
      state?: components['schemas']['DriftState'];
    };
    /** @enum {string} */
    DriftKind: 'amount' | 'stage' | 'closing_date' | 'quote_total' | 'quote_rows' | 'sale_missing' | 'sale_items' | 'status' | 'file_missing';
    /** @enum {string} */
    DriftState: 'open' | 'healed' | 'accepted';
    DriftView: {
      /** @description The CRM's last change was crm-sync's own write (auto-heal may write again); false: a person's, or unknown. */
      by_crm_sync: boolean;
      /** Format: date-time */
      changed_at: string | null;
      /** @description Who changed the CRM's record last, as the CRM names them. */
      changed_by: string | null;
      /** @enum {string} */
      crm: 'appointment' | 'record';
      /** @description The CRM's value now; null: nothing (gone). */
      crm_value: string | null;
      /** Format: date-time */
      decided_at: string | null;
      /** @description Who healed or accepted it. */
      decided_by: string | null;
      /** Format: date-time */
      found_at: string;
      /** @description The sync log entry of the last heal. */
      heal_entry_id: string | null;
      id: string;
      kind: components['schemas']['DriftKind'];
      /** @description Where the record opens in its CRM. */
      link: string | null;
      project_id: string | null;
      proposal_id: string;
      /**
       * Format: date-time
       * @description When a check last saw it.
       */
      seen_at: string;
      /** @description The service's value (amounts exact decimal text). */
      service_value: string | null;
      state: components['schemas']['DriftState'];
      /**
       * @description The appointment id, or `Module/record id` in Zoho.
       * @example Deals/4150868000005277036
       */
      target: string;
      /** @description The sync log entry of that write. */
      written_entry_id: string | null;
      /** @description What crm-sync last wrote; null: never written. */
      written_value: string | null;
    };
    FunnelCrmView: {
      /** @enum {string} */
      crm: 'appointment' | 'record';
      /** @example Zoho CRM */
      name: string;
      /** @description In the order a sale flows; a step that does not apply to the CRM is left out. */
      steps: components['schemas']['FunnelStepView'][];
    };
    FunnelDayView: {
      /**
       * @description Their approved total, exact decimal text ("0" on a day with none).
       * @example 4250.00
       */
      amount: string;
      /** @description Proposals approved that day (both CRMs, or the one asked for). */
      approved: number;
      /**
       * @description A UTC day.
       * @example 2026-11-24
       */
      day: string;
    };
    FunnelPartView: {
      /**
       * @description Exact decimal text; null when the step carries no amount.
       * @example 4250.00
       */
      amount: string | null;
      count: number;
      /** @example Deal amount */
      label: string;
      /** @example /api/sync-logs?crm=record&kind=update_deal&status=succeeded&since=2026-11-19T10:00:00.000Z */
      link: string;
    };
    FunnelStepView: {
      /**
       * @description Exact decimal text; null when the step carries no amount.
       * @example 4250.00
       */
      amount: string | null;
      count: number;
      /** @example Deal amount */
      label: string;
      /** @example /api/sync-logs?crm=record&kind=update_deal&status=succeeded&since=2026-11-19T10:00:00.000Z */
      link: string;
      /** @description What the step is made of (written: the sale and Sold; the Deal amount and the Quote). */
      parts: components['schemas']['FunnelPartView'][];
      /** @enum {string} */
      step:
        | 'read'
        | 'qualifying'
        | 'projects_created'
        | 'mapped'
        | 'drawings_pushed'
        | 'proposals_exported'
        | 'approved'
        | 'written'
        | 'in_agreement'
        | 'failed'
        | 'waiting';
    };
    FunnelView: {
      /** @description Approved amounts per UTC day, from the day the window starts in to today, zero-filled. */
      approved_per_day: components['schemas']['FunnelDayView'][];
      crms: components['schemas']['FunnelCrmView'][];
      /**
       * Format: date-time
       * @description The window starts here; it ends now.
       */
      since: string;
      /** @enum {string} */
      window: '24h' | '7d' | '30d';
    };
    HourView: {
      failed: number;
      /**
       * Format: date-time
       * @description Start of the UTC hour.
       */
      hour: string;
      skipped: number;
      succeeded: number;
    };
    MappingInputDto: {
      /**
       * @description Required when crm is appointment; empty otherwise.
       * @example APT-1001
       */
      appointment_id?: string;
      /** @enum {string} */
      crm: 'appointment' | 'record';
      /**
       * @description The CRM record's name as a picker showed it (kept for the screens).
       * @example Ana Ruiz
       */
      crm_record_name?: string;
      /**
       * @description The service's project id, a string of digits (a JSON number is accepted).
       * @example 36029621652695017
       */
      project_id: string;
      /**
       * @description Required when crm is record; empty otherwise.
       * @enum {string}
       */
      record_crm_module?: 'Deals' | 'Quotes' | 'Leads' | 'Contacts';
      /**
       * @description Required when crm is record (a string of digits); empty otherwise.
       * @example 4150868000004357001
       */
      record_crm_record_id?: string;
    };
    MappingView: {
      /** @example APT-1001 */
      appointment_id: string | null;
      /** Format: date-time */
      created_at: string;
      /** @enum {string} */
      crm: 'appointment' | 'record';
      /**
       * @description The CRM record's name; null while unknown.
       * @example Ana Ruiz
       */
      crm_record_name: string | null;
      /** @description The reason when failed, else null. */
      error: string | null;
      /** @example 12 */
      id: string;
      /** @example 36029621652695017 */
      project_id: string;
      /**
       * @description The project's name; null while unknown.
       * @example Ruiz kitchen
       */
      project_name: string | null;
      /** @enum {string|null} */
      record_crm_module: 'Deals' | 'Quotes' | 'Leads' | 'Contacts' | null;
      /** @example 4150868000004357001 */
      record_crm_record_id: string | null;
      /**
       * @description Who made it: an admin, the CSV import, or an automation that created its project.
       * @enum {string}
       */
      source: 'admin' | 'import' | 'automation' | 'suggestion';
      /** @enum {string} */
      status: 'pending' | 'associated' | 'failed';
      /** Format: date-time */
      updated_at: string;
      /**
       * @description Where the CRM record opens in its CRM; null when not known (docs/operations.md, "Links to the CRMs").
       * @example https://crm.zoho.com/crm/org20071234/tab/Deals/4150868000004357001
       */
      web_url: string | null;
    };
    MeView: {
      /**
       * @description The name of the token (or session) making the request.
       * @example admin
       */
      name: string;
      /** @enum {string} */
      role: 'viewer' | 'operator' | 'admin';
    };
    OverviewView: {
      /** @description Actions per kind created in the window. */
      by_kind: {
        [key: string]: number;
      };
      /** @description Actions per status whose last change is in the window. */
      by_status: {
        [key: string]: number;
      };
      /** @description `service`, `appointment_crm`, `record_crm`, `webhooks`. */
      connections: {
        [key: string]: unknown;
      };
      /** @description Deliveries stored and not routed yet. */
      deliveries_waiting: number;
      /** @description Seconds the longest-waiting queued action has waited since it was queued. */
      oldest_queued_age_seconds: number | null;
      /** @description Finished actions per UTC hour, every hour of the window. */
      per_hour: components['schemas']['HourView'][];
      /** @description Projects created from CRM records (`create_project` entries finished in the window). */
      projects_created: components['schemas']['ProjectsCreatedView'];
      /** Format: date-time */
      since: string;
      /** @description succeeded / (succeeded + failed) in the window; null when neither. */
      success_rate: number | null;
      /** @enum {string} */
      window: '24h' | '7d';
      /** @description Zoho calls today: N of the org's daily allowance (docs/zoho-crm.md "Credits"). */
      zoho_calls_today: components['schemas']['ZohoCallsTodayView'];
    };
    ProjectCustomerView: {
      email: string | null;
      name: string | null;
      phone: string | null;
    };
    ProjectHitView: {
      /** @example 2026-11-20T10:00:00 */
      created_at: string | null;
      /** @example Ana Ruiz */
      customer_name: string | null;
      /** @example 36029621652695017 */
      id: string;
      /** @example Ruiz kitchen */
      name: string;
    };
    ProjectsCreatedView: {
      /** @description Of them, from appointments. */
      appointment: number;
      /** @description Creations that failed for good in the window (each alerted, naming its record). */
      failed: number;
      /** @description Of them, from Zoho records. */
      record: number;
      /** @description Projects the automations created (or found, made by a try whose answer was lost) in the window. */
      total: number;
    };
    ProjectView: {
      /** @description Newest first, at most 200; `parent_id` links a chain. */
      actions: components['schemas']['SyncLogEntryView'][];
      /** @description The listed actions grouped by chain, newest chain first. */
      chains: components['schemas']['ChainView'][];
      customer: components['schemas']['ProjectCustomerView'] | null;
      /** @description The project's Deal as crm-sync last wrote it (update_deal); null: never. */
      deal: components['schemas']['DealRevenueView'] | null;
      /** @description Newest first, at most 100. */
      deliveries: components['schemas']['DeliveryView'][];
      mappings: components['schemas']['MappingView'][];
      /** @description The project's name (from its events, or P4 when first shown); null when the service cannot say. */
      name: string | null;
      /** @example 36029621652695017 */
      project_id: string;
    };
    ReconcileRequestDto: {
      /**
       * @description `changes`: what changed in the service since the last pass (cheap); `full`: every mapped project, paced to half the rate cap.
       * @default changes
       * @enum {string}
       */
      scope: 'changes' | 'full';
    };
    RecordCrmConnectionDto: {
      /**
       * Format: uri
       * @description The accounts server of the Zoho account's data centre.
       * @example https://accounts.zoho.eu
       */
      accounts_url: string;
      /** @description The Client ID of a server-based client in Zoho's API console. */
      client_id: string;
      /** @description Its Client Secret; may be left out to reconnect with the client already saved (same client_id). */
      client_secret?: string;
    };
    RevenueCheckRequestDto: {
      /**
       * @description `changes`: the CRM records changed since the last pass and those crm-sync wrote to since; `full`: every approved record.
       * @default changes
       * @enum {string}
       */
      scope: 'changes' | 'full';
    };
    RevenueCrmView: {
      /** @description Approved proposals pushed to this CRM (each once). */
      approved: number;
      /**
       * @description Their approved totals, exact decimal text.
       * @example 125000.00
       */
      approved_amount: string;
      /** @enum {string} */
      crm: 'appointment' | 'record';
      /** @description Those with an open drift. */
      drifted: number;
      /** @example 5000.00 */
      drifted_amount: string;
      /** @description Those without an open drift. */
      in_agreement: number;
      /** @example 120000.00 */
      in_agreement_amount: string;
      /** @example Zoho CRM */
      name: string;
      /** @description Open drifts per kind. */
      open_by_kind: {
        [key: string]: number;
      };
      /** @description Open drifts (a proposal may have several). */
      open_drifts: number;
    };
    RevenueSummaryView: {
      crms: components['schemas']['RevenueCrmView'][];
      /** Format: date-time */
      last_check_at: string | null;
      /** @description What it did. */
      last_check_detail: string | null;
      /** @description The sync log id of the last revenue check pass. */
      last_check_id: string | null;
    };
    SalesforceConnectionDto: {
      /** @description The Connected App's Consumer Key. */
      client_id: string;
      /** @description Its Consumer Secret; may be left out to reconnect with the app already saved (same client_id and login_url). */
      client_secret?: string;
      /**
       * Format: uri
       * @description Where to sign in: login.salesforce.com, test.salesforce.com (sandbox) or the org’s My Domain.
       * @example https://login.salesforce.com
       */
      login_url?: string;
      /**
       * @default improveit360-classic
       * @enum {string}
       */
      preset: 'improveit360-classic' | 'improveit360-lightning';
      /**
       * @description Who pushes files, sales and Sold to the org.
       * @default service
       * @enum {string}
       */
      pushes: 'service' | 'crm-sync';
    };
    SalesforceNamesDto: {
      /** @description Names that differ from the preset's, by need (`{ "appointment_job_number": "Job_No__c" }`); `''` leaves an optional need unused. */
      names?: {
        [key: string]: string;
      };
      /** @enum {string} */
      preset?: 'improveit360-classic' | 'improveit360-lightning';
      /** @enum {string} */
      pushes?: 'service' | 'crm-sync';
      /** @description The value of the result pick list that means Sold. */
      sold_value?: string;
    };
    SendAcceptedDto: {
      /** @description The sync log entries created (the sale; status Sold follows it). */
      sync_log_ids: string[];
    };
    SendToAppointmentDto: {
      /** @example 36029621652695018 */
      drawing_id: string;
      /** @example 36029621652695017 */
      project_id: string;
    };
    ServiceConnectionDto: {
      /**
       * Format: uri
       * @description The service's API address; ends in /v1.
       * @example https://api.example.com/v1
       */
      base_url: string;
      /** @description The service's API token (sent as Bearer). Never returned; only its last 4 characters. */
      token: string;
    };
    SessionLoginDto: {
      /** @description An admin token (`ADMIN_TOKEN` or the one printed on the first start, or one of `ADMIN_TOKENS`). */
      token: string;
    };
    SettingsView: Record<string, never>;
    SuggestionView: {
      candidates: components['schemas']['CandidateView'][];
      /** Format: date-time */
      created_at: string;
      /** @enum {string} */
      crm: 'appointment' | 'record';
      /** @description Who accepted or dismissed it (null: auto_accept). */
      decided_by: string | null;
      /** @example 7 */
      id: string;
      /** @description The mapping made when accepted. */
      mapping_id: string | null;
      /** @example 36029621652695017 */
      project_id: string;
      /** @example Ruiz kitchen */
      project_name: string | null;
      /**
       * @description `closed`: the project was mapped meanwhile; `changed`: an accept found the values changed since the look.
       * @enum {string}
       */
      status: 'open' | 'accepted' | 'dismissed' | 'closed' | 'changed';
      /** Format: date-time */
      updated_at: string;
    };
    SyncLogCallView: {
      /**
       * Format: date-time
       * @description When the call started.
       */
      at: string;
      /** @example 120 */
      duration_ms: number;
      /** @description A short reason when the call failed. */
      error: string | null;
      /** @example POST */
      method: string;
      /**
       * @description A template: no ids, no query string; a PDF download from a signed URL is `(pdf download) <host>`.
       * @example /appointments/:id/files
       */
      path: string;
      /**
       * @description The run (attempt number) that made the call.
       * @example 1
       */
      run: number;
      /**
       * @description Order of the call within its run, from 1.
       * @example 1
       */
      seq: number;
      /**
       * @description The answer's status; null when there was none.
       * @example 503
       */
      status: number | null;
      /**
       * @description `service`, `download`, `appointment_crm`, `zoho` or `zoho_accounts`.
       * @example appointment_crm
       */
      system: string;
    };
    SyncLogEntryDetailView: {
      /** @description The admin (token name) whose request created the entry; null for the daemon. */
      actor: string | null;
      /** @description How many times the action ran. */
      attempts: number;
      /** @description Every outbound HTTP call of every run, in order (run, then seq). */
      calls: components['schemas']['SyncLogCallView'][];
      /** Format: date-time */
      created_at: string;
      /** @enum {string|null} */
      crm: 'appointment' | 'record' | null;
      /** @description What the action did, or why it was skipped. */
      detail: string | null;
      duration_ms: number | null;
      /** @description The last failure's reason. */
      error: string | null;
      /** Format: date-time */
      finished_at: string | null;
      /** @example 42 */
      id: string;
      inbox_id?: string | null;
      kind: components['schemas']['ActionKind'];
      parent_id?: string | null;
      /** @description The action's input; below the admin role, URL query strings and userinfo replaced by `?…` and `…@`. */
      payload: {
        [key: string]: unknown;
      };
      /** @example 36029621652695017 */
      project_id: string | null;
      /**
       * @description The project's name; null while unknown (or no project).
       * @example Ruiz kitchen
       */
      project_name: string | null;
      status: components['schemas']['SyncStatus'];
      /** @description The appointment id, or `Module/record id`. */
      target: string | null;
      /** @description The target's name, as its mapping keeps it; null while unknown. */
      target_name: string | null;
      /** @description Where the target opens in its CRM; null when not known (docs/operations.md, "Links to the CRMs"). */
      target_web_url: string | null;
      /** @enum {string} */
      trigger: 'webhook' | 'admin' | 'schedule' | 'reconcile' | 'automation';
    };
    SyncLogEntryView: {
      /** @description The admin (token name) whose request created the entry; null for the daemon. */
      actor: string | null;
      /** @description How many times the action ran. */
      attempts: number;
      /** Format: date-time */
      created_at: string;
      /** @enum {string|null} */
      crm: 'appointment' | 'record' | null;
      /** @description What the action did, or why it was skipped. */
      detail: string | null;
      duration_ms: number | null;
      /** @description The last failure's reason. */
      error: string | null;
      /** Format: date-time */
      finished_at: string | null;
      /** @example 42 */
      id: string;
      inbox_id?: string | null;
      kind: components['schemas']['ActionKind'];
      parent_id?: string | null;
      /** @description The action's input; below the admin role, URL query strings and userinfo replaced by `?…` and `…@`. */
      payload: {
        [key: string]: unknown;
      };
      /** @example 36029621652695017 */
      project_id: string | null;
      /**
       * @description The project's name; null while unknown (or no project).
       * @example Ruiz kitchen
       */
      project_name: string | null;
      status: components['schemas']['SyncStatus'];
      /** @description The appointment id, or `Module/record id`. */
      target: string | null;
      /** @description The target's name, as its mapping keeps it; null while unknown. */
      target_name: string | null;
      /** @description Where the target opens in its CRM; null when not known (docs/operations.md, "Links to the CRMs"). */
      target_web_url: string | null;
      /** @enum {string} */
      trigger: 'webhook' | 'admin' | 'schedule' | 'reconcile' | 'automation';
    };
    SyncLogFilterChoicesView: {
      /** @description Every action kind, ACTION_KINDS in src/domain/actions.ts. */
      kinds: components['schemas']['ActionKind'][];
      statuses: components['schemas']['SyncStatus'][];
    };
    /** @enum {string} */
    SyncStatus: 'queued' | 'running' | 'succeeded' | 'failed' | 'skipped' | 'waiting';
    /** @enum {string} */
    WebhookEndpoint: 'events' | 'appointment-prompt' | 'record-prompt';
    WebhooksConnectionDto: {
      appointment_prompt?: string[];
      /** @description The events webhook's secrets, newest first (two during a rotation); `…abcd` keeps a current one. */
      events: string[];
      record_prompt?: string[];
    };
    ZohoCallsTodayView: {
      /** @description The org's daily API call allowance (ZOHO_DAILY_CALL_ALLOWANCE, default 50,000). */
      allowance: number;
      /** @description Zoho calls every replica made that day (API and token requests); null when Redis, which keeps the count, did not answer. */
      calls: number | null;
      /** @description The UTC day counted, YYYY-MM-DD. */
      day: string;
    };
  };
  responses: never;
  parameters: never;
  requestBodies: never;
  headers: never;
  pathItems: never;
}
export type $defs = Record<string, never>;
export interface operations {
  SessionController_login: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody: {
      content: {
        'application/json': components['schemas']['SessionLoginDto'];
      };
    };
    responses: {
      /** @description Signed in; `Set-Cookie: __Host-crm_sync_session=…; HttpOnly; SameSite=Strict; Path=/; Max-Age=43200; Secure` (over plain http: `crm_sync_session`, not Secure). */
      204: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
      /** @description Unknown token. */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
      /** @description Too many failed sign-ins or Bearer tokens from this address; `Retry-After` says when to try again. */
      429: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
    };
  };
  SessionController_logout: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description Signed out. */
      204: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
    };
  };
  AlertsController_list: {
    parameters: {
      query?: {
        /** @description The `next_cursor` of the previous page. */
        cursor?: string;
        /** @description Items per page. */
        limit?: number;
      };
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            items: components['schemas']['AlertView'][];
            /** @description The `cursor` of the next page; null on the last. */
            next_cursor: string | null;
          };
        };
      };
      /** @description Missing or wrong admin token (or console session). */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
      /** @description The token lacks the role the route needs; the answer names it (`required_role`). */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
    };
  };
  AlertsController_test: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': Record<string, never>;
        };
      };
      /** @description Missing or wrong admin token (or console session). */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
      /** @description The token lacks the role the route needs; the answer names it (`required_role`). */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
    };
  };
  AppointmentSendController_send: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody: {
      content: {
        'application/json': components['schemas']['SendToAppointmentDto'];
      };
    };
    responses: {
      202: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['SendAcceptedDto'];
        };
      };
      /** @description Missing or wrong admin token (or console session). */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
      /** @description The token lacks the role the route needs; the answer names it (`required_role`). */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
    };
  };
  AutomationsController_get: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description `{ "appointment_crm": {...}, "record_crm": {..., "notifications": {...}} }` */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
      /** @description Missing or wrong admin token (or console session). */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
      /** @description The token lacks the role the route needs; the answer names it (`required_role`). */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
    };
  };
  AutomationsController_run: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        crm: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description `{ "id": "<sync log id>", "status": "queued" | "running" | ... }` */
      202: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
      /** @description Missing or wrong admin token (or console session). */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
      /** @description The token lacks the role the route needs; the answer names it (`required_role`). */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
      /** @description No reader of that CRM. */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
    };
  };
  AutomationsController_putAppointmentCrm: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody: {
      content: {
        'application/json': Record<string, never>;
      };
    };
    responses: {
      /** @description The automation as GET shows it. */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
      /** @description Missing or wrong admin token (or console session). */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
      /** @description The token lacks the role the route needs; the answer names it (`required_role`). */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
      /** @description `errors: [{ field, code, message }]`, one per bad field. */
      422: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
    };
  };
  AutomationsController_putRecordCrm: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody: {
      content: {
        'application/json': Record<string, never>;
      };
    };
    responses: {
      /** @description The automation as GET shows it. */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
      /** @description Missing or wrong admin token (or console session). */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
      /** @description The token lacks the role the route needs; the answer names it (`required_role`). */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
      /** @description `errors: [{ field, code, message }]`, one per bad field. */
      422: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
    };
  };
  ConnectionsController_list: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': Record<string, never>;
        };
      };
      /** @description Missing or wrong admin token (or console session). */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
      /** @description The token lacks the role the route needs; the answer names it (`required_role`). */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
    };
  };
  ConnectionsController_remove: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        name: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description Missing or wrong admin token (or console session). */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
      /** @description The token lacks the role the route needs; the answer names it (`required_role`). */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
      /** @description Set in the environment. */
      409: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
    };
  };
  ConnectionsController_test: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        name: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description `{ ok, code, detail }`: `code` says why it failed (null when it passed). */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
      /** @description Missing or wrong admin token (or console session). */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
      /** @description The token lacks the role the route needs; the answer names it (`required_role`). */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
    };
  };
  ConnectionsController_putAppointmentCrm: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody: {
      content: {
        'application/json': components['schemas']['AppointmentCrmConnectionDto'];
      };
    };
    responses: {
      /** @description Missing or wrong admin token (or console session). */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
      /** @description The token lacks the role the route needs; the answer names it (`required_role`). */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
      /** @description Set in the environment, or no CONNECTIONS_KEY. */
      409: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
      /** @description The appointment CRM refused or did not answer; nothing was saved. */
      422: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
    };
  };
  SalesforceConnectionController_fields: {
    parameters: {
      query: {
        /** @description The API name of an object of the org (`Account`, `i360__Prospect__c`). */
        object: unknown;
      };
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description Missing or wrong admin token (or console session). */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
      /** @description The token lacks the role the route needs; the answer names it (`required_role`). */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
      /** @description The org has no such object (or this user may not see it). */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
    };
  };
  SalesforceConnectionController_names: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody: {
      content: {
        'application/json': components['schemas']['SalesforceNamesDto'];
      };
    };
    responses: {
      /** @description Missing or wrong admin token (or console session). */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
      /** @description The token lacks the role the route needs; the answer names it (`required_role`). */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
      /** @description Set in the environment, or not a Salesforce org. */
      409: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
      /** @description A name the org lacks or of the wrong type; the answer lists them and nothing is saved. */
      422: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
    };
  };
  SalesforceConnectionController_start: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody: {
      content: {
        'application/json': components['schemas']['SalesforceConnectionDto'];
      };
    };
    responses: {
      /** @description Missing or wrong admin token (or console session). */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
      /** @description The token lacks the role the route needs; the answer names it (`required_role`). */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
      /** @description Set in the environment, or no CONNECTIONS_KEY. */
      409: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
    };
  };
  SalesforceConnectionController_schema: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description `{ ok, needs, objects, soldValue, pushes, preset }`: the last reading of the org. */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
      /** @description Missing or wrong admin token (or console session). */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
      /** @description The token lacks the role the route needs; the answer names it (`required_role`). */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
      /** @description More reads than SEARCH_MAX_PER_USER in the window; `Retry-After` says when to try again. */
      429: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
    };
  };
  ConnectionsController_putRecordCrm: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody: {
      content: {
        'application/json': components['schemas']['RecordCrmConnectionDto'];
      };
    };
    responses: {
      /** @description Missing or wrong admin token (or console session). */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
      /** @description The token lacks the role the route needs; the answer names it (`required_role`). */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
      /** @description Set in the environment, or no CONNECTIONS_KEY. */
      409: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
    };
  };
  ConnectionsController_putService: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody: {
      content: {
        'application/json': components['schemas']['ServiceConnectionDto'];
      };
    };
    responses: {
      /** @description Missing or wrong admin token (or console session). */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
      /** @description The token lacks the role the route needs; the answer names it (`required_role`). */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
      /** @description Set in the environment, or no CONNECTIONS_KEY. */
      409: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
      /** @description The service refused or did not answer; nothing was saved. */
      422: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
    };
  };
  ConnectionsController_putWebhooks: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody: {
      content: {
        'application/json': components['schemas']['WebhooksConnectionDto'];
      };
    };
    responses: {
      /** @description Missing or wrong admin token (or console session). */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
      /** @description The token lacks the role the route needs; the answer names it (`required_role`). */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
      /** @description Set in the environment, or no CONNECTIONS_KEY. */
      409: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
      /** @description `…abcd` names no current secret. */
      422: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
    };
  };
  CrmMetadataController_appointmentStatuses: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description Missing or wrong admin token (or console session). */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
      /** @description The token lacks the role the route needs; the answer names it (`required_role`). */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
      /** @description The appointment CRM is not connected (`code: "not_connected"`). */
      409: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
      /** @description The appointment CRM failed; the message says why. */
      502: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
    };
  };
  CrmMetadataController_moduleFields: {
    parameters: {
      query?: {
        module?: 'Deals' | 'Quotes' | 'Leads' | 'Contacts';
      };
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description `{ items: ZohoField[] }` */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
      /** @description module is missing or not one crm-sync reads. */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
      /** @description Missing or wrong admin token (or console session). */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
      /** @description The token lacks the role the route needs; the answer names it (`required_role`). */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
      /** @description Zoho CRM is not connected (`code: "not_connected"`). */
      409: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
      /** @description Zoho failed; the message says why. */
      502: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
    };
  };
  CrmMetadataController_modules: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description Missing or wrong admin token (or console session). */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
      /** @description The token lacks the role the route needs; the answer names it (`required_role`). */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
      /** @description Zoho CRM is not connected (`code: "not_connected"`). */
      409: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
      /** @description Zoho failed; the message says why. */
      502: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
    };
  };
  CrmMetadataController_pipelines: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description Missing or wrong admin token (or console session). */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
      /** @description The token lacks the role the route needs; the answer names it (`required_role`). */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
      /** @description Zoho CRM is not connected (`code: "not_connected"`). */
      409: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
      /** @description Zoho failed (a connection without ZohoCRM.settings.layouts.READ is refused there); the message says why. */
      502: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
    };
  };
  DeliveriesController_list: {
    parameters: {
      query?: {
        /** @description The `next_cursor` of the previous page. */
        cursor?: string;
        endpoint?: 'events' | 'appointment-prompt' | 'record-prompt';
        event?: string;
        /** @description Items per page. */
        limit?: number;
        /** @description The project routing found the delivery to concern. */
        project_id?: string;
        /** @description Only deliveries received at or after this time (ISO 8601). */
        since?: string;
        /** @description `duplicate`: deliveries the service sent again within the dedupe window (counted on the stored delivery), whatever their status. */
        status?: 'received' | 'routed' | 'ignored' | 'failed' | 'duplicate';
      };
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            items: components['schemas']['DeliveryView'][];
            /** @description The `cursor` of the next page; null on the last. */
            next_cursor: string | null;
          };
        };
      };
      /** @description A filter or the paging is invalid; the message names the field. */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
      /** @description Missing or wrong admin token (or console session). */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
      /** @description The token lacks the role the route needs; the answer names it (`required_role`). */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
    };
  };
  DeliveriesController_get: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        id: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['DeliveryDetailView'];
        };
      };
      /** @description Missing or wrong admin token (or console session). */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
      /** @description The token lacks the role the route needs; the answer names it (`required_role`). */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
      /** @description No such delivery. */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
    };
  };
  DeliveriesController_replay: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        id: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description `{ sync_log_ids: string[], replay: number }` */
      202: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
      /** @description Missing or wrong admin token (or console session). */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
      /** @description The token lacks the role the route needs; the answer names it (`required_role`). */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
      /** @description No such delivery. */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
      /** @description An unknown event (ignored), or a delivery not routed yet; the message says why. */
      409: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
      /** @description The stored body is still not of the documented shape; the message names the problem. */
      422: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
      /** @description Routing needed the service, which failed; nothing was recorded. */
      502: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
    };
  };
  DeliveriesController_filters: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['DeliveryFilterChoicesView'];
        };
      };
      /** @description Missing or wrong admin token (or console session). */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
      /** @description The token lacks the role the route needs; the answer names it (`required_role`). */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
    };
  };
  FunnelController_get: {
    parameters: {
      query?: {
        /** @description One CRM only; both when left out. */
        crm?: 'appointment' | 'record';
        /** @description The period counted, up to now. */
        window?: '24h' | '7d' | '30d';
      };
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['FunnelView'];
        };
      };
      /** @description window is not 24h, 7d or 30d, or crm not appointment or record. */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
      /** @description Missing or wrong admin token (or console session). */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
      /** @description The token lacks the role the route needs; the answer names it (`required_role`). */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
    };
  };
  MappingsController_list: {
    parameters: {
      query?: {
        crm?: 'appointment' | 'record';
        /** @description The `next_cursor` of the previous page. */
        cursor?: string;
        /** @description Items per page. */
        limit?: number;
        project_id?: string;
        status?: 'pending' | 'associated' | 'failed';
      };
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            items: components['schemas']['MappingView'][];
            /** @description The `cursor` of the next page; null on the last. */
            next_cursor: string | null;
          };
        };
      };
      /** @description A filter or the paging is invalid; the message names the field. */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
      /** @description Missing or wrong admin token (or console session). */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
      /** @description The token lacks the role the route needs; the answer names it (`required_role`). */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
    };
  };
  MappingsController_create: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody: {
      content: {
        'application/json':
          | components['schemas']['MappingInputDto']
          | {
              items: components['schemas']['MappingInputDto'][];
            };
      };
    };
    responses: {
      /** @description Per-item results (batch): every item created. */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
      /** @description The created mapping (single object). */
      201: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['MappingView'];
        };
      };
      /** @description Per-item results (batch): some items refused. */
      207: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
      /** @description Invalid input; the message names the field. */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
      /** @description Missing or wrong admin token (or console session). */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
      /** @description The token lacks the role the route needs; the answer names it (`required_role`). */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
      /** @description An existing mapping has this appointment, record, or project; the answer names it. */
      409: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
      /** @description Per-item results (batch): every item refused. */
      422: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
    };
  };
  MappingsController_remove: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        id: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description Removed. */
      204: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
      /** @description Missing or wrong admin token (or console session). */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
      /** @description The token lacks the role the route needs; the answer names it (`required_role`). */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
      /** @description No such mapping. */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
    };
  };
  MappingsController_associate: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description `{ sync_log_ids: string[] }` */
      202: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
      /** @description Missing or wrong admin token (or console session). */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
      /** @description The token lacks the role the route needs; the answer names it (`required_role`). */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
    };
  };
  MappingsController_import: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody: {
      content: {
        'text/csv': string;
      };
    };
    responses: {
      /** @description `{ created, errors, items: [{ line, status, error, mapping_id }] }` */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
      /** @description No header row, or a wrong one. */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
      /** @description Missing or wrong admin token (or console session). */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
      /** @description The token lacks the role the route needs; the answer names it (`required_role`). */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
      /** @description Over MAPPING_IMPORT_MAX_BYTES, MAPPING_IMPORT_MAX_ROWS or MAPPING_IMPORT_MAX_RECORD_BYTES; the message names the limit. */
      413: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
    };
  };
  SessionController_me: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['MeView'];
        };
      };
      /** @description Missing or wrong admin token (or console session). */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
      /** @description The token lacks the role the route needs; the answer names it (`required_role`). */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
    };
  };
  OverviewController_overview: {
    parameters: {
      query?: {
        /** @description The period the counts and the hourly series cover. */
        window?: '24h' | '7d';
      };
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['OverviewView'];
        };
      };
      /** @description window is not 24h or 7d. */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
      /** @description Missing or wrong admin token (or console session). */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
      /** @description The token lacks the role the route needs; the answer names it (`required_role`). */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
    };
  };
  ProjectsController_project: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        /** @description The exact decimal id. */
        project_id: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ProjectView'];
        };
      };
      /** @description project_id is not a string of digits. */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
      /** @description Missing or wrong admin token (or console session). */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
      /** @description The token lacks the role the route needs; the answer names it (`required_role`). */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
      /** @description crm-sync knows nothing of that project (no name kept, mapping, delivery or action): the service is not asked. */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
    };
  };
  ReconcileController_start: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody: {
      content: {
        'application/json': components['schemas']['ReconcileRequestDto'];
      };
    };
    responses: {
      /** @description `{ "id": "<sync log id>", "status": "queued" | "running" }` */
      202: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
      /** @description An unknown scope. */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
      /** @description Missing or wrong admin token (or console session). */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
      /** @description The token lacks the role the route needs; the answer names it (`required_role`). */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
      /** @description The service is not connected. */
      409: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
    };
  };
  RevenueController_start: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody: {
      content: {
        'application/json': components['schemas']['RevenueCheckRequestDto'];
      };
    };
    responses: {
      /** @description `{ "id": "<sync log id>", "status": "queued" | "running" }` */
      202: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
      /** @description Missing or wrong admin token (or console session). */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
      /** @description The token lacks the role the route needs; the answer names it (`required_role`). */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
    };
  };
  RevenueController_list: {
    parameters: {
      query?: {
        crm?: 'appointment' | 'record';
        /** @description The `next_cursor` of the previous page. */
        cursor?: string;
        kind?: components['schemas']['DriftKind'];
        /** @description Items per page. */
        limit?: number;
        /** @description The service's project id (exact decimal text). */
        project_id?: string;
        state?: components['schemas']['DriftState'];
      };
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            items: components['schemas']['DriftView'][];
            /** @description The `cursor` of the next page; null on the last. */
            next_cursor: string | null;
          };
        };
      };
      /** @description Missing or wrong admin token (or console session). */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
      /** @description The token lacks the role the route needs; the answer names it (`required_role`). */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
    };
  };
  RevenueController_accept: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        id: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['DriftView'];
        };
      };
      /** @description Missing or wrong admin token (or console session). */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
      /** @description The token lacks the role the route needs; the answer names it (`required_role`). */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
      /** @description No such drift. */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
      /** @description The drift is not open. */
      409: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
    };
  };
  RevenueController_heal: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        id: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description `{ "id": "<sync log id>", "status": "queued" }` */
      202: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
      /** @description Missing or wrong admin token (or console session). */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
      /** @description The token lacks the role the route needs; the answer names it (`required_role`). */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
      /** @description No such drift. */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
    };
  };
  RevenueController_acceptMany: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody: {
      content: {
        'application/json': components['schemas']['DriftFilterDto'];
      };
    };
    responses: {
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['BulkDecisionView'];
        };
      };
      /** @description Missing or wrong admin token (or console session). */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
      /** @description The token lacks the role the route needs; the answer names it (`required_role`). */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
    };
  };
  RevenueController_healMany: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody: {
      content: {
        'application/json': components['schemas']['DriftFilterDto'];
      };
    };
    responses: {
      202: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['BulkDecisionView'];
        };
      };
      /** @description Missing or wrong admin token (or console session). */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
      /** @description The token lacks the role the route needs; the answer names it (`required_role`). */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
    };
  };
  RevenueController_agreement: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['RevenueSummaryView'];
        };
      };
      /** @description Missing or wrong admin token (or console session). */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
      /** @description The token lacks the role the route needs; the answer names it (`required_role`). */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
    };
  };
  SearchController_crmRecords: {
    parameters: {
      query: {
        crm: 'appointment' | 'record';
        /** @description Required when crm is record (the Zoho module to search; Products for the fallback product of the revenue settings). */
        module?: 'Deals' | 'Quotes' | 'Leads' | 'Contacts' | 'Products';
        /** @description Words of the record (a name, an e-mail, a job number); Zoho wants at least 2 characters. */
        q: string;
      };
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            items: components['schemas']['CrmRecordHitView'][];
          };
        };
      };
      /** @description crm, module or q is missing or invalid; the message names the field. */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
      /** @description Missing or wrong admin token (or console session). */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
      /** @description The token lacks the role the route needs; the answer names it (`required_role`). */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
      /** @description That CRM is not connected (`code: "not_connected"`). */
      409: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
      /** @description The user made SEARCH_MAX_PER_USER searches in this window; Retry-After says when to try again. */
      429: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
      /** @description The CRM failed; the message says why. */
      502: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
    };
  };
  SearchController_projects: {
    parameters: {
      query: {
        /** @description Part of the project's name (P5 `project_name`). */
        q: string;
      };
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            items: components['schemas']['ProjectHitView'][];
          };
        };
      };
      /** @description q is missing or too long. */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
      /** @description Missing or wrong admin token (or console session). */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
      /** @description The token lacks the role the route needs; the answer names it (`required_role`). */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
      /** @description The user made SEARCH_MAX_PER_USER searches in this window; Retry-After says when to try again. */
      429: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
      /** @description The service failed; the message says why. */
      502: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
    };
  };
  AlertsController_settings: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['SettingsView'];
        };
      };
      /** @description Missing or wrong admin token (or console session). */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
      /** @description The token lacks the role the route needs; the answer names it (`required_role`). */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
    };
  };
  SuggestionsController_list: {
    parameters: {
      query?: {
        /** @description The `next_cursor` of the previous page. */
        cursor?: string;
        /** @description Items per page. */
        limit?: number;
        status?: 'open' | 'accepted' | 'dismissed' | 'closed' | 'changed';
      };
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            items: components['schemas']['SuggestionView'][];
            /** @description The `cursor` of the next page; null on the last. */
            next_cursor: string | null;
          };
        };
      };
      /** @description Missing or wrong admin token (or console session). */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
      /** @description The token lacks the role the route needs; the answer names it (`required_role`). */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
    };
  };
  SuggestionsController_accept: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        id: string;
      };
      cookie?: never;
    };
    requestBody: {
      content: {
        'application/json': components['schemas']['AcceptSuggestionDto'];
      };
    };
    responses: {
      /** @description The mapping made (source `suggestion`). */
      201: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['MappingView'];
        };
      };
      /** @description No candidate named while there are several, or one that is not a candidate. */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
      /** @description Missing or wrong admin token (or console session). */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
      /** @description The token lacks the role the route needs; the answer names it (`required_role`). */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
      /** @description No such suggestion. */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
      /** @description The suggestion is not open, a mapping is in the way (the message names it), or (`code: "changed"`) the project or the record no longer match as found: the suggestion is marked `changed`. */
      409: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
      /** @description The project or the record could not be read again (the service or the CRM away); nothing was mapped. */
      503: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
    };
  };
  SuggestionsController_dismiss: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        id: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['SuggestionView'];
        };
      };
      /** @description Missing or wrong admin token (or console session). */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
      /** @description The token lacks the role the route needs; the answer names it (`required_role`). */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
      /** @description No such suggestion. */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
      /** @description The suggestion is not open (nor `changed`). */
      409: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
    };
  };
  SyncLogsController_list: {
    parameters: {
      query?: {
        crm?: 'appointment' | 'record';
        /** @description The `next_cursor` of the previous page. */
        cursor?: string;
        kind?: string;
        /** @description Items per page. */
        limit?: number;
        project_id?: string;
        /** @description Only entries created at or after this time (ISO 8601). */
        since?: string;
        status?: 'queued' | 'running' | 'succeeded' | 'failed' | 'skipped' | 'waiting';
      };
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            items: components['schemas']['SyncLogEntryView'][];
            /** @description The `cursor` of the next page; null on the last. */
            next_cursor: string | null;
          };
        };
      };
      /** @description A filter or the paging is invalid; the message names the field. */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
      /** @description Missing or wrong admin token (or console session). */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
      /** @description The token lacks the role the route needs; the answer names it (`required_role`). */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
    };
  };
  SyncLogsController_get: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        id: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['SyncLogEntryDetailView'];
        };
      };
      /** @description Missing or wrong admin token (or console session). */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
      /** @description The token lacks the role the route needs; the answer names it (`required_role`). */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
      /** @description No such entry. */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
    };
  };
  SyncLogsController_retry: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        id: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description The entry, queued again. */
      202: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['SyncLogEntryView'];
        };
      };
      /** @description Missing or wrong admin token (or console session). */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
      /** @description The token lacks the role the route needs; the answer names it (`required_role`). */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
      /** @description No such entry. */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
      /** @description The entry is not failed; the answer names its status. */
      409: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
    };
  };
  BulkRetryController_count: {
    parameters: {
      query?: {
        crm?: 'appointment' | 'record';
        /** @description Count what would be retried, change nothing. */
        dry_run?: 'true' | 'false';
        kind?: string;
        project_id?: string;
        /** @description Only entries created at or after this time (ISO 8601). */
        since?: string;
        /** @description Implied; only failed entries are retried. */
        status?: 'failed';
      };
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description `{ matching, would_retry, cap }` */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
      /** @description A filter is invalid; the message names the field. */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
      /** @description Missing or wrong admin token (or console session). */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
      /** @description The token lacks the role the route needs; the answer names it (`required_role`). */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
    };
  };
  SyncLogsController_filters: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['SyncLogFilterChoicesView'];
        };
      };
      /** @description Missing or wrong admin token (or console session). */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
      /** @description The token lacks the role the route needs; the answer names it (`required_role`). */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
    };
  };
  BulkRetryController_retry: {
    parameters: {
      query?: {
        crm?: 'appointment' | 'record';
        /** @description Count what would be retried, change nothing. */
        dry_run?: 'true' | 'false';
        kind?: string;
        project_id?: string;
        /** @description Only entries created at or after this time (ISO 8601). */
        since?: string;
        /** @description Implied; only failed entries are retried. */
        status?: 'failed';
      };
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description `{ retried, ids, cap, more }`, or with dry_run `{ matching, would_retry, cap }` */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
      /** @description A filter is invalid (a status other than failed included); the message names the field. */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
      /** @description Missing or wrong admin token (or console session). */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
      /** @description The token lacks the role the route needs; the answer names it (`required_role`). */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
    };
  };
  HealthController_live: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      200: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
    };
  };
  HealthController_ready: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description The Health Check is successful */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /**
             * @example {
             *       "database": {
             *         "status": "up",
             *         "responseTime": 12
             *       }
             *     }
             */
            details?: {
              [key: string]: {
                /** @description Time the health indicator took to respond, in ms */
                responseTime?: number;
                /** @enum {string} */
                status: 'up' | 'degraded' | 'down';
              } & {
                [key: string]: unknown;
              };
            };
            /** @example {} */
            error?: {
              [key: string]: {
                /** @description Time the health indicator took to respond, in ms */
                responseTime?: number;
                /** @enum {string} */
                status: 'up' | 'degraded' | 'down';
              } & {
                [key: string]: unknown;
              };
            } | null;
            /**
             * @example {
             *       "database": {
             *         "status": "up",
             *         "responseTime": 12
             *       }
             *     }
             */
            info?: {
              [key: string]: {
                /** @description Time the health indicator took to respond, in ms */
                responseTime?: number;
                /** @enum {string} */
                status: 'up' | 'degraded' | 'down';
              } & {
                [key: string]: unknown;
              };
            } | null;
            /**
             * @example ok
             * @enum {string}
             */
            status?: 'ok' | 'degraded';
          };
        };
      };
      /** @description The Health Check is not successful */
      503: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /**
             * @example {
             *       "database": {
             *         "status": "up",
             *         "responseTime": 12
             *       },
             *       "redis": {
             *         "status": "down",
             *         "message": "Could not connect",
             *         "responseTime": 3005
             *       }
             *     }
             */
            details?: {
              [key: string]: {
                /** @description Time the health indicator took to respond, in ms */
                responseTime?: number;
                /** @enum {string} */
                status: 'up' | 'degraded' | 'down';
              } & {
                [key: string]: unknown;
              };
            };
            /**
             * @example {
             *       "redis": {
             *         "status": "down",
             *         "message": "Could not connect",
             *         "responseTime": 3005
             *       }
             *     }
             */
            error?: {
              [key: string]: {
                /** @description Time the health indicator took to respond, in ms */
                responseTime?: number;
                /** @enum {string} */
                status: 'up' | 'degraded' | 'down';
              } & {
                [key: string]: unknown;
              };
            } | null;
            /**
             * @example {
             *       "database": {
             *         "status": "up",
             *         "responseTime": 12
             *       }
             *     }
             */
            info?: {
              [key: string]: {
                /** @description Time the health indicator took to respond, in ms */
                responseTime?: number;
                /** @enum {string} */
                status: 'up' | 'degraded' | 'down';
              } & {
                [key: string]: unknown;
              };
            } | null;
            /**
             * @example error
             * @enum {string}
             */
            status?: 'error' | 'shutting_down';
          };
        };
      };
    };
  };
  WebhooksController_appointmentPrompt: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      200: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
    };
  };
  WebhooksController_events: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      200: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
    };
  };
  WebhooksController_recordPrompt: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      200: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
    };
  };
}
