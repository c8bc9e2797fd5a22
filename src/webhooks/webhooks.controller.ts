import { Body, Controller, Delete, Get, Path, Post, Put, Query, Request, Response, Route, Security, SuccessResponse, Tags } from '@tsoa/runtime';
import type { Request as ExRequest } from 'express';
import { principalOf } from '../http/principal.js';
import type { ErrorResponse } from '../http/error.dto.js';
import {
  DEPENDENCY_UNAVAILABLE_EXAMPLE,
  MAP_NOT_FOUND_EXAMPLE,
  RATE_LIMITED_EXAMPLE,
  MAP_KEY_UNAUTHORIZED_DESCRIPTION,
  MAP_KEY_UNAUTHORIZED_EXAMPLE,
} from '../http/error-examples.js';
import type { DataResponse } from '../http/data-response.js';
import type { WebhookService } from './webhook.service.js';
import type {
  CreatedWebhookSubscriptionDto,
  CreateWebhookRequest,
  DeliveryAttemptsPage,
  PingResultDto,
  QueuedDeliveryDto,
  RecoverRequest,
  RecoverResultDto,
  RedeliverRequest,
  WebhookStatsDto,
  ToggleWebhooksRequest,
  UpdateWebhookRequest,
  WebhookSecretDto,
  WebhooksToggleDto,
  WebhookSubscriptionDto,
} from './webhook.dto.js';

const WEBHOOKS_DISABLED_EXAMPLE: ErrorResponse = { error: 'Webhooks are disabled on this server', code: 'webhooks_disabled' };
const WEBHOOK_NOT_FOUND_EXAMPLE: ErrorResponse = { error: 'Webhook not found', code: 'webhook_not_found' };
const MANAGED_EXAMPLE: ErrorResponse = {
  error: 'This subscription is managed by kubernetes:team-a/alerts; change that resource instead',
  code: 'managed_by_kubernetes',
};

/**
 * Webhook subscriptions of a map (spec 4.6; shapes of decisions §4, delivery of decisions §7), with
 * the map's key. `{map_id}` is the map UUID or slug. Answers 403 `webhooks_disabled` while
 * SERVICE_WEBHOOKS_ENABLED is off.
 */
@Route('api/maps/{map_id}/webhooks')
@Tags('Webhooks')
@Security('map_key')
@Response<ErrorResponse>(400, 'Invalid body, URL or event type (`validation_failed`, `invalid_webhook_url`)')
@Response<ErrorResponse>(401, MAP_KEY_UNAUTHORIZED_DESCRIPTION, MAP_KEY_UNAUTHORIZED_EXAMPLE)
@Response<ErrorResponse>(403, 'Webhooks are switched off on this server', WEBHOOKS_DISABLED_EXAMPLE)
@Response<ErrorResponse>(404, 'Unknown map, or a map this key does not belong to', MAP_NOT_FOUND_EXAMPLE)
@Response<ErrorResponse>(429, 'Rate limit exceeded (see Retry-After)', RATE_LIMITED_EXAMPLE)
@Response<ErrorResponse>(503, 'Database unavailable (see Retry-After)', DEPENDENCY_UNAVAILABLE_EXAMPLE)
export class WebhooksController extends Controller {
  constructor(private readonly webhooks: WebhookService) {
    super();
  }

  /**
   * Switches webhook delivery on or off for the map. Only the map owner's key may (else 403 `not_map_owner`).
   * Events written while it is off are never delivered.
   * @summary Switch the map's webhooks
   * @param map_id Map UUID or slug.
   */
  @Put('toggle')
  @Response<ErrorResponse>(403, "Not the map owner's key (`not_map_owner`), or webhooks switched off on this server")
  public async toggleWebhooks(
    @Request() req: ExRequest,
    @Path() map_id: string,
    @Body() body: ToggleWebhooksRequest,
  ): Promise<DataResponse<WebhooksToggleDto>> {
    return { data: await this.webhooks.toggle(principalOf(req, 'map_key'), map_id, body.enabled) };
  }

  /**
   * The map's subscriptions, oldest first (no secrets).
   * @summary List subscriptions
   * @param map_id Map UUID or slug.
   */
  @Get()
  public async listWebhooks(@Request() req: ExRequest, @Path() map_id: string): Promise<DataResponse<WebhookSubscriptionDto[]>> {
    return { data: await this.webhooks.list(principalOf(req, 'map_key'), map_id) };
  }

  /**
   * Creates a subscription and answers it with its signing `secret`, shown this once. At most 5 per map
   * (409 `webhook_limit_reached`), one per URL (409 `webhook_url_exists`). The URL must be https and
   * every address it resolves to public.
   * Each delivery is a POST of the event envelope with `x-service-signature`, `x-service-timestamp`,
   * `x-service-event-id`, `x-service-event-type`, `x-service-delivery-attempt`, the Standard Webhooks
   * headers and `webhook-sequence`: 1, 2, 3… per subscription in event order, the same on every retry,
   * redeliver and recover of an event (docs/api.md). A 429 or 503 with `Retry-After` holds the
   * subscription's attempts until then, at most the retry schedule's longest wait.
   * @summary Create a subscription
   * @param map_id Map UUID or slug.
   */
  @Post()
  @SuccessResponse(201, 'Created')
  @Response<ErrorResponse>(409, 'Sixth subscription of the map, or a URL the map already has')
  public async createWebhook(
    @Request() req: ExRequest,
    @Path() map_id: string,
    @Body() body: CreateWebhookRequest,
  ): Promise<DataResponse<CreatedWebhookSubscriptionDto>> {
    const data = await this.webhooks.create(principalOf(req, 'map_key'), map_id, body);
    this.setStatus(201);
    return { data };
  }

  /**
   * One subscription with its delivery state, as the list shows it (no secret).
   * @summary Get a subscription
   * @param map_id Map UUID or slug.
   * @param id Subscription id.
   */
  @Get('{id}')
  @Response<ErrorResponse>(404, 'Unknown subscription', WEBHOOK_NOT_FOUND_EXAMPLE)
  public async getWebhook(@Request() req: ExRequest, @Path() map_id: string, @Path() id: string): Promise<DataResponse<WebhookSubscriptionDto>> {
    return { data: await this.webhooks.get(principalOf(req, 'map_key'), map_id, id) };
  }

  /**
   * Changes `url`, `events` and/or `active`. Setting `active` true again resets `consecutive_failures`;
   * setting it false drops the deliveries still waiting for a retry.
   * @summary Update a subscription
   * @param map_id Map UUID or slug.
   * @param id Subscription id.
   */
  @Put('{id}')
  @Response<ErrorResponse>(404, 'Unknown subscription', WEBHOOK_NOT_FOUND_EXAMPLE)
  @Response<ErrorResponse>(409, 'A URL the map already has, or a subscription managed by a Kubernetes resource', MANAGED_EXAMPLE)
  public async updateWebhook(
    @Request() req: ExRequest,
    @Path() map_id: string,
    @Path() id: string,
    @Body() body: UpdateWebhookRequest,
  ): Promise<DataResponse<WebhookSubscriptionDto>> {
    return { data: await this.webhooks.update(principalOf(req, 'map_key'), map_id, id, body) };
  }

  /**
   * Deletes a subscription (204, no body); its queued deliveries and attempt log go with it.
   * @summary Delete a subscription
   * @param map_id Map UUID or slug.
   * @param id Subscription id.
   */
  @Delete('{id}')
  @SuccessResponse(204, 'Deleted')
  @Response<ErrorResponse>(404, 'Unknown subscription', WEBHOOK_NOT_FOUND_EXAMPLE)
  @Response<ErrorResponse>(409, 'Managed by a Kubernetes resource', MANAGED_EXAMPLE)
  public async deleteWebhook(@Request() req: ExRequest, @Path() map_id: string, @Path() id: string): Promise<void> {
    await this.webhooks.remove(principalOf(req, 'map_key'), map_id, id);
    this.setStatus(204);
  }

  /**
   * A new signing secret; deliveries from now on are signed with it only.
   * @summary Rotate the signing secret
   * @param map_id Map UUID or slug.
   * @param id Subscription id.
   */
  @Post('{id}/rotate-secret')
  @Response<ErrorResponse>(404, 'Unknown subscription', WEBHOOK_NOT_FOUND_EXAMPLE)
  @Response<ErrorResponse>(409, 'Managed by a Kubernetes resource', MANAGED_EXAMPLE)
  public async rotateWebhookSecret(@Request() req: ExRequest, @Path() map_id: string, @Path() id: string): Promise<DataResponse<WebhookSecretDto>> {
    return { data: await this.webhooks.rotateSecret(principalOf(req, 'map_key'), map_id, id) };
  }

  /**
   * The subscription's delivery attempts of the last 7 days, newest first.
   * @summary Delivery attempt log
   * @param map_id Map UUID or slug.
   * @param id Subscription id.
   * @param outcome `success` or `failure`.
   * @param before An attempt id: only older attempts (the previous page's `next_before`).
   * @isInt before must be an integer
   * @minimum before 1
   * @maximum before 9007199254740991
   * @param limit Page size, 1–200 (default 50).
   * @isInt limit must be an integer
   * @minimum limit 1
   * @maximum limit 200
   */
  @Get('{id}/deliveries')
  @Response<ErrorResponse>(404, 'Unknown subscription', WEBHOOK_NOT_FOUND_EXAMPLE)
  public async listWebhookDeliveries(
    @Request() req: ExRequest,
    @Path() map_id: string,
    @Path() id: string,
    @Query() outcome?: string,
    @Query() before?: number,
    @Query() limit?: number,
  ): Promise<DeliveryAttemptsPage> {
    return this.webhooks.attempts(principalOf(req, 'map_key'), map_id, id, { outcome, before, limit: limit ?? 50 });
  }

  /**
   * Queues one event of the map again for this subscription (a fresh series of attempts, sent at once by
   * a worker), whatever happened to it before. The event's type must be one the subscription receives.
   * @summary Redeliver an event
   * @param map_id Map UUID or slug.
   * @param id Subscription id.
   */
  @Post('{id}/redeliver')
  @SuccessResponse(202, 'Queued')
  @Response<ErrorResponse>(404, 'Unknown subscription, or an event unknown to the map (or past retention)')
  @Response<ErrorResponse>(409, 'The subscription does not receive events of that type', {
    error: 'This subscription does not receive map_kill events (its events: add_system)',
    code: 'event_not_subscribed',
  })
  public async redeliverWebhookEvent(
    @Request() req: ExRequest,
    @Path() map_id: string,
    @Path() id: string,
    @Body() body: RedeliverRequest,
  ): Promise<DataResponse<QueuedDeliveryDto>> {
    const data = await this.webhooks.redeliver(principalOf(req, 'map_key'), map_id, id, body.event_id);
    this.setStatus(202);
    return { data };
  }

  /**
   * Delivers again, in event order, every event of the map committed after `since` that the subscription
   * receives (each a fresh series of attempts, marked `recovered` in the attempt log, with the
   * `webhook-sequence` it was first delivered with). At most 10,000 events, within the event log's
   * retention (EVENTS_RETENTION_DAYS).
   * @summary Recover events since a time
   * @param map_id Map UUID or slug.
   * @param id Subscription id.
   */
  @Post('{id}/recover')
  @SuccessResponse(202, 'Queued')
  @Response<ErrorResponse>(
    400,
    '`since` missing or not RFC 3339 (`validation_failed`), older than the event log holds (`recover_since_too_old`, naming the oldest time available), or more than 10,000 events match (`recover_too_many_events`)',
    {
      error: '`since` is older than the event log holds; the oldest time available is 2026-11-21T09:00:00.000Z',
      code: 'recover_since_too_old',
      details: [{ field: 'since', message: 'must be 2026-11-21T09:00:00.000Z or later' }],
    },
  )
  @Response<ErrorResponse>(404, 'Unknown subscription', WEBHOOK_NOT_FOUND_EXAMPLE)
  @Response<ErrorResponse>(
    409,
    'A recover of this subscription is still delivering (`recover_in_progress`), or the subscription is switched off (`webhook_inactive`)',
    {
      error: 'A recover of this subscription is still delivering; try again once it is done',
      code: 'recover_in_progress',
    },
  )
  public async recoverWebhookEvents(
    @Request() req: ExRequest,
    @Path() map_id: string,
    @Path() id: string,
    @Body() body: RecoverRequest,
  ): Promise<DataResponse<RecoverResultDto>> {
    const data = await this.webhooks.recover(principalOf(req, 'map_key'), map_id, id, body.since);
    this.setStatus(202);
    return { data };
  }

  /**
   * The subscription's health over the last 5 minutes, hour or day, from its attempt log: attempts by
   * outcome and failure class, latency percentiles, and its latest error.
   * @summary Delivery health
   * @param map_id Map UUID or slug.
   * @param id Subscription id.
   * @param window `5m`, `1h` (default) or `24h`.
   */
  @Get('{id}/stats')
  @Response<ErrorResponse>(404, 'Unknown subscription', WEBHOOK_NOT_FOUND_EXAMPLE)
  public async getWebhookStats(
    @Request() req: ExRequest,
    @Path() map_id: string,
    @Path() id: string,
    @Query() window?: string,
  ): Promise<DataResponse<WebhookStatsDto>> {
    return { data: await this.webhooks.stats(principalOf(req, 'map_key'), map_id, id, window) };
  }

  /**
   * Sends one signed `ping` event (`{"id", "type": "ping", "map_id", "ts", "payload": {"subscription_id",
   * "message"}}`) to the subscription's URL now, and answers how the attempt went. It is sent even when the
   * subscription or the map's webhooks are off, and it is recorded in the attempt log.
   * @summary Send a test event
   * @param map_id Map UUID or slug.
   * @param id Subscription id.
   */
  @Post('{id}/ping')
  @Response<ErrorResponse>(404, 'Unknown subscription', WEBHOOK_NOT_FOUND_EXAMPLE)
  public async pingWebhook(@Request() req: ExRequest, @Path() map_id: string, @Path() id: string): Promise<DataResponse<PingResultDto>> {
    return { data: await this.webhooks.ping(principalOf(req, 'map_key'), map_id, id) };
  }
}
