import type { Db } from '../../db/db.js';
import type { MapKeyPrincipal } from '../../http/principal.js';
import { ValidationError } from '../../common/errors.js';
import { EventLogService } from '../event-log/event-log.service.js';
import { CharacterRepository } from '../../characters/character.repository.js';
import { MapAccess, type MapSelector } from '../map-access.js';
import type { CharacterDto } from '../../characters/character.dto.js';
import type { AuditEntryDto, AuditPeriod } from './audit.dto.js';
import { toAuditEntry } from './audit.presenter.js';

const DAY_MS = 24 * 3600 * 1000;

/** Length of each period; a month is 31 days, as the reference server counts. */
export const AUDIT_PERIOD_MS: Record<AuditPeriod, number> = {
  '1H': 3600 * 1000,
  '1D': DAY_MS,
  '1W': 7 * DAY_MS,
  '1M': 31 * DAY_MS,
  '2M': 62 * DAY_MS,
  '3M': 93 * DAY_MS,
};

/** Entries one request answers at most (the newest). */
export const AUDIT_MAX_ENTRIES = 1000;

/** The audit feed: the map's event log over a period, newest first, in the reference server's entry shape. */
export class AuditService {
  private readonly access: MapAccess;

  constructor(
    private readonly db: Db,
    private readonly log = new EventLogService(db),
    private readonly characters = new CharacterRepository(),
  ) {
    this.access = new MapAccess(db);
  }

  async feed(principal: MapKeyPrincipal, selector: MapSelector, period: string | undefined, limit = AUDIT_MAX_ENTRIES): Promise<AuditEntryDto[]> {
    if (period === undefined || !Object.hasOwn(AUDIT_PERIOD_MS, period)) {
      throw new ValidationError([{ field: 'period', message: `must be one of ${Object.keys(AUDIT_PERIOD_MS).join(', ')}` }]);
    }
    const map = await this.access.bySelector(principal, selector);
    const since = new Date(Date.now() - AUDIT_PERIOD_MS[period as AuditPeriod]);
    const rows = await this.log.since(map.id, since, limit);
    const eveIds = [...new Set(rows.flatMap((r) => (typeof r.payload.character_eve_id === 'string' ? [r.payload.character_eve_id] : [])))];
    const known = new Map<string, CharacterDto>();
    for (const eveId of eveIds) {
      const found = await this.characters.byEveId(this.db, eveId);
      if (found) known.set(eveId, found.character);
    }
    return rows.map((r) => toAuditEntry(r, (eveId) => known.get(eveId)));
  }
}
