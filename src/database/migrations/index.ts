import { SyncLogAndInbox1763700000000 } from './1763700000000-sync-log-and-inbox.js';
import { Mappings1763700001000 } from './1763700001000-mappings.js';
import { AppointmentDrawingState1763700003000 } from './1763700003000-appointment-drawing-state.js';
import { RecordActionsFunction1763700004000 } from './1763700004000-record-actions-function.js';
import { StoreDeliveriesSetBased1763700005000 } from './1763700005000-store-deliveries-set-based.js';
import { RelayOutbox1763700006000 } from './1763700006000-relay-outbox.js';
import { Actor1763700007000 } from './1763700007000-actor.js';
import { CallTraces1763700008000 } from './1763700008000-call-traces.js';
import { Alerts1763700009000 } from './1763700009000-alerts.js';
import { Operations1763700010000 } from './1763700010000-operations.js';
import { Connections1763700011000 } from './1763700011000-connections.js';
import { ReconcilePasses1763700012000 } from './1763700012000-reconcile-passes.js';
import { ConnectionCheckCode1763700012500 } from './1763700012500-connection-check-code.js';
import { LegacySeals1763700013000 } from './1763700013000-legacy-seals.js';
import { AdminSessionEpoch1763700013500 } from './1763700013500-admin-session-epoch.js';
import { Revenue1763700014000 } from './1763700014000-revenue.js';
import { Automations1763700014200 } from './1763700014200-automations.js';
import { ProjectNames1763700014500 } from './1763700014500-project-names.js';
import { MappingSuggestions1763700014600 } from './1763700014600-mapping-suggestions.js';
import { AppointmentFileReplaces1763700015300 } from './1763700015300-appointment-file-replaces.js';
import { SuggestionChanged1763700015410 } from './1763700015410-suggestion-changed.js';
import { AdminCredentialMac1763700015420 } from './1763700015420-admin-credential-mac.js';
import { Funnel1763700016300 } from './1763700016300-funnel.js';
import { RecordUrls1763700016400 } from './1763700016400-record-urls.js';
import { SyncLogWaiting1763700016500 } from './1763700016500-sync-log-waiting.js';
import { AppointmentStatusesSeen1763700016600 } from './1763700016600-appointment-statuses-seen.js';
import { RecordNotificationChannel1763800020000 } from './1763800020000-record-notification-channel.js';
import { RecordRouted1763800070000 } from './1763800070000-record-routed.js';
import { QuoteCreateSent1763900000000 } from './1763900000000-quote-create-sent.js';
import { SalesforceSessions1764150000000 } from './1764150000000-salesforce-sessions.js';
import { AutomationReadFrom1764150001000 } from './1764150001000-automation-read-from.js';
import { RevenueDrifts1764200000000 } from './1764200000000-revenue-drifts.js';
import { AppointmentFileUploads1764700000000 } from './1764700000000-appointment-file-uploads.js';

/** Every migration, in order; listed explicitly so no file globbing is needed under ESM. */
export const MIGRATIONS = [
  SyncLogAndInbox1763700000000,
  Mappings1763700001000,
  AppointmentDrawingState1763700003000,
  RecordActionsFunction1763700004000,
  StoreDeliveriesSetBased1763700005000,
  RelayOutbox1763700006000,
  Actor1763700007000,
  CallTraces1763700008000,
  Alerts1763700009000,
  Operations1763700010000,
  Connections1763700011000,
  ReconcilePasses1763700012000,
  ConnectionCheckCode1763700012500,
  LegacySeals1763700013000,
  AdminSessionEpoch1763700013500,
  Revenue1763700014000,
  Automations1763700014200,
  ProjectNames1763700014500,
  MappingSuggestions1763700014600,
  AppointmentFileReplaces1763700015300,
  SuggestionChanged1763700015410,
  AdminCredentialMac1763700015420,
  Funnel1763700016300,
  RecordUrls1763700016400,
  SyncLogWaiting1763700016500,
  AppointmentStatusesSeen1763700016600,
  RecordNotificationChannel1763800020000,
  RecordRouted1763800070000,
  QuoteCreateSent1763900000000,
  SalesforceSessions1764150000000,
  AutomationReadFrom1764150001000,
  RevenueDrifts1764200000000,
  AppointmentFileUploads1764700000000,
];
