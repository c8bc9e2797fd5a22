export { createMapIntelClient, type MapIntelClient, type MapIntelClientOptions, type Schemas, type components, type operations, type paths } from './client.js';
export { streamEvents, StreamError, type EventEnvelope, type StreamItem, type StreamOptions } from './events.js';
export { verifyWebhook, WebhookVerificationError, type VerifyWebhookOptions, type VerifiedWebhook } from './webhooks.js';
export { syncMap, SyncMapError, type MapChange, type MapConnection, type MapState, type MapSystem, type SyncedMap, type SyncMapOptions } from './sync.js';
