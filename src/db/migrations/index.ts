/** Migrations in order. Listed explicitly so the same list runs from TypeScript sources and the build. */
import { Migration20261122155358_initial } from './Migration20261122155358_initial.js';
import { Migration20261122170000_events } from './Migration20261122170000_events.js';
import { Migration20261122190000_notify_after_commit } from './Migration20261122190000_notify_after_commit.js';
import { Migration20261123100000_event_consumers } from './Migration20261123100000_event_consumers.js';
import { Migration20261123120000_key_stream_profile } from './Migration20261123120000_key_stream_profile.js';
import { Migration20261123140000_map_versions } from './Migration20261123140000_map_versions.js';
import { Migration20261123150000_webhook_delivery } from './Migration20261123150000_webhook_delivery.js';
import { Migration20261124220000_drop_webhook_due_index } from './Migration20261124220000_drop_webhook_due_index.js';
import { Migration20261125100000_attempt_log_without_delivery } from './Migration20261125100000_attempt_log_without_delivery.js';
import { Migration20261126090000_webhook_url_spelling } from './Migration20261126090000_webhook_url_spelling.js';
import { Migration20261128130000_webhook_sequences } from './Migration20261128130000_webhook_sequences.js';
import { Migration20261128140000_rally_points } from './Migration20261128140000_rally_points.js';
import { Migration20261128150000_wormhole_types } from './Migration20261128150000_wormhole_types.js';
import { Migration20261128160000_stargate_jumps } from './Migration20261128160000_stargate_jumps.js';

export const MIGRATIONS = [
  { name: 'Migration20261122155358_initial', class: Migration20261122155358_initial },
  { name: 'Migration20261122170000_events', class: Migration20261122170000_events },
  { name: 'Migration20261122190000_notify_after_commit', class: Migration20261122190000_notify_after_commit },
  { name: 'Migration20261123100000_event_consumers', class: Migration20261123100000_event_consumers },
  { name: 'Migration20261123120000_key_stream_profile', class: Migration20261123120000_key_stream_profile },
  { name: 'Migration20261123140000_map_versions', class: Migration20261123140000_map_versions },
  { name: 'Migration20261123150000_webhook_delivery', class: Migration20261123150000_webhook_delivery },
  { name: 'Migration20261124220000_drop_webhook_due_index', class: Migration20261124220000_drop_webhook_due_index },
  { name: 'Migration20261125100000_attempt_log_without_delivery', class: Migration20261125100000_attempt_log_without_delivery },
  { name: 'Migration20261126090000_webhook_url_spelling', class: Migration20261126090000_webhook_url_spelling },
  { name: 'Migration20261128130000_webhook_sequences', class: Migration20261128130000_webhook_sequences },
  { name: 'Migration20261128140000_rally_points', class: Migration20261128140000_rally_points },
  { name: 'Migration20261128150000_wormhole_types', class: Migration20261128150000_wormhole_types },
  { name: 'Migration20261128160000_stargate_jumps', class: Migration20261128160000_stargate_jumps },
];
