import { Migration } from '@mikro-orm/migrations';

/**
 * The spelling of webhooks/url-guard.ts's `canonicalUrl` when this migration was written, frozen here: an
 * applied migration must not change when that function does.
 */
function canonicalUrl(text: string): string {
  const trimmed = text.trim();
  let url: URL;
  try {
    url = new URL(trimmed);
  } catch {
    return trimmed;
  }
  if (UNSAFE_CHARACTERS.test(trimmed)) return trimmed;
  url.hash = '';
  return url.href;
}

// eslint-disable-next-line no-control-regex -- control characters are what it finds
const UNSAFE_CHARACTERS = /[\u0000-\u0020\u007f-\u009f]/;

/**
 * Webhook URLs are stored in one spelling (`canonicalUrl`: as the URL parser writes them, without the
 * fragment), so the per-map uniqueness of URLs means one subscription per endpoint. Rows written before
 * are rewritten to it; a row whose canonical spelling another subscription of its map already has is
 * left as it is (the older one keeps the spelling; neither is deleted). Not reverted: the earlier
 * spellings are not kept.
 */
export class Migration20261126090000_webhook_url_spelling extends Migration {
  override async up(): Promise<void> {
    const rows = (await this.execute(`select id, url from webhook_subscriptions order by inserted_at, id`)) as { id: string; url: string }[];
    for (const row of rows) {
      const url = canonicalUrl(row.url);
      if (url === row.url || url.length > 2000) continue;
      await this.execute(
        `update webhook_subscriptions s set url = ? where s.id = ?
           and not exists (select 1 from webhook_subscriptions o where o.map_id = s.map_id and o.url = ?)`,
        [url, row.id, url],
      );
    }
  }

  override down(): void {}
}
