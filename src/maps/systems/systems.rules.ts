/** Rules of system writes that need no database: field normalisation and batch checks. */
import { ValidationError, type ErrorDetail } from '../../common/errors.js';
import type { SystemFieldsInput, SystemStatusName } from './systems.dto.js';

/** Status names in code order (decisions §3). */
export const SYSTEM_STATUS_NAMES: readonly SystemStatusName[] = ['clear', 'home', 'friendly', 'looking_for', 'warning', 'target', 'dangerous'];

/** Editable system fields, in the order `changed` lists them. */
export const SYSTEM_FIELDS = ['position_x', 'position_y', 'custom_name', 'tag', 'status', 'labels', 'description', 'locked'] as const;
export type SystemField = (typeof SYSTEM_FIELDS)[number];

/** True when the text is valid JSON (labels are a JSON-encoded value). */
export function isJsonText(text: string): boolean {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}

/** The provided fields of a system write, normalised (status as its integer); `where` prefixes error fields. */
export function systemValues(input: SystemFieldsInput, where: string): Partial<Record<SystemField, unknown>> {
  const out: Partial<Record<SystemField, unknown>> = {};
  for (const f of SYSTEM_FIELDS) {
    const v = input[f];
    if (v === undefined) continue;
    out[f] = f === 'status' && typeof v === 'string' ? SYSTEM_STATUS_NAMES.indexOf(v as SystemStatusName) : v;
  }
  if (typeof out.labels === 'string' && !isJsonText(out.labels)) {
    throw new ValidationError([{ field: `${where}labels`, message: 'must be a JSON-encoded value' }]);
  }
  return out;
}

/** 400 when a batch lists a solar system more than once. */
export function refuseRepeatedSystems(ids: readonly number[], where: (index: number) => string): void {
  const seen = new Set<number>();
  const dupes: ErrorDetail[] = [];
  ids.forEach((id, i) => {
    if (seen.has(id)) dupes.push({ field: `${where(i)}solar_system_id`, message: `${id} is listed more than once` });
    seen.add(id);
  });
  if (dupes.length) throw new ValidationError(dupes);
}
