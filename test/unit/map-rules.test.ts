/** The rules of map content that need no database: systems, connections, signature batches, kills, activity. */
import { describe, expect, it } from 'vitest';
import { ValidationError, AppError } from '../../src/common/errors.js';
import { refuseRepeatedSystems, SYSTEM_STATUS_NAMES, systemValues } from '../../src/maps/systems/systems.rules.js';
import { connectionIdOf, connectionValues, normaliseWormholeType, refuseLoop } from '../../src/maps/connections/connections.rules.js';
import { changedSignatureFields, linkedSystems, normaliseBatch, signatureIdOf } from '../../src/maps/signatures/signatures.rules.js';
import { killsOfBody, uniqueKills } from '../../src/maps/kills/kills.rules.js';
import { incrementOf } from '../../src/maps/activity/activity.rules.js';
import type { SignatureInput } from '../../src/maps/signatures/signatures.dto.js';

function failure(fn: () => unknown): { status: number; code: string; details?: unknown } {
  try {
    fn();
  } catch (err) {
    expect(err).toBeInstanceOf(AppError);
    const e = err as AppError;
    return { status: e.status, code: e.code, ...(err instanceof ValidationError ? { details: e.details } : {}) };
  }
  throw new Error('expected an error');
}

describe('system rules', () => {
  it('keeps only the given fields and turns a status name into its code (decisions §3 order)', () => {
    expect(SYSTEM_STATUS_NAMES).toEqual(['clear', 'home', 'friendly', 'looking_for', 'warning', 'target', 'dangerous']);
    expect(systemValues({ status: 'target', position_x: 10, tag: null }, '')).toEqual({ status: 5, position_x: 10, tag: null });
    expect(systemValues({}, '')).toEqual({});
  });

  it('accepts labels only as JSON text, naming the field with its batch path', () => {
    expect(systemValues({ labels: '["a","b"]' }, '')).toEqual({ labels: '["a","b"]' });
    expect(failure(() => systemValues({ labels: 'not json' }, 'systems[2].'))).toEqual({
      status: 400,
      code: 'validation_failed',
      details: [{ field: 'systems[2].labels', message: 'must be a JSON-encoded value' }],
    });
  });

  it('refuses a batch that lists a system twice, naming every repeat', () => {
    expect(() => refuseRepeatedSystems([1, 2, 3], (i) => `systems[${i}].`)).not.toThrow();
    expect(failure(() => refuseRepeatedSystems([7, 8, 7, 7], (i) => `systems[${i}].`)).details).toEqual([
      { field: 'systems[2].solar_system_id', message: '7 is listed more than once' },
      { field: 'systems[3].solar_system_id', message: '7 is listed more than once' },
    ]);
  });
});

describe('connection rules', () => {
  it('refuses a connection from a system to itself', () => {
    expect(() => refuseLoop(1, 2)).not.toThrow();
    expect(failure(() => refuseLoop(3, 3)).details).toEqual([{ field: 'solar_system_target', message: 'must differ from solar_system_source' }]);
  });

  it('upper-cases wormhole types and keeps only the given editable fields', () => {
    expect(normaliseWormholeType({ wormhole_type: 'n110', x: 1 })).toEqual({ wormhole_type: 'N110', x: 1 });
    expect(normaliseWormholeType({ wormhole_type: null })).toEqual({ wormhole_type: null });
    expect(connectionValues({ mass_status: 1, locked: undefined, type: 0 })).toEqual({ type: 0, mass_status: 1 });
  });

  it('answers 404 connection_not_found for an id that cannot be one', () => {
    expect(connectionIdOf('5B0F0000-0000-4000-8000-000000000000')).toBe('5b0f0000-0000-4000-8000-000000000000');
    expect(failure(() => connectionIdOf('nope'))).toEqual({ status: 404, code: 'connection_not_found' });
  });
});

describe('signature batches', () => {
  const sig = (signature_id: string, more: Partial<SignatureInput> = {}) => ({ signature_id, ...more }) as SignatureInput;

  it('upper-cases ids and refuses one listed twice in any case', () => {
    expect(normaliseBatch([sig('abc-123'), sig('DEF-456')]).map((s) => s.signature_id)).toEqual(['ABC-123', 'DEF-456']);
    expect(failure(() => normaliseBatch([sig('ABC-123'), sig('xyz-999'), sig('abc-123')])).details).toEqual([
      { field: 'signatures[2].signature_id', message: 'ABC-123 is listed more than once' },
    ]);
  });

  it('reports only the fields that change, and the systems the batch links to once each', () => {
    const row = { name: 'Old', kind: 'Cosmic Signature', group: 'Wormhole', type: null, description: null, linked_system_id: null };
    expect(changedSignatureFields(sig('ABC-123', { name: 'Old', type: 'K162', linked_system_id: 31000005 }), row)).toEqual({
      type: 'K162',
      linked_system_id: 31000005,
    });
    expect(
      linkedSystems([
        sig('A', { linked_system_id: 5 }),
        sig('B', { linked_system_id: 5 }),
        sig('C', { linked_system_id: null }),
        sig('D', { linked_system_id: 6 }),
      ]),
    ).toEqual([5, 6]);
  });

  it('answers 404 signature_not_found for a path id that cannot be one', () => {
    expect(signatureIdOf('abc-123')).toBe('ABC-123');
    expect(failure(() => signatureIdOf('ABC123'))).toEqual({ status: 404, code: 'signature_not_found' });
  });
});

describe('kill imports', () => {
  it('takes one kill, an array or {kills}, with the body path of each for error details', () => {
    const k = { killmail_id: 1 } as never;
    expect(killsOfBody(k).fieldPrefix(0)).toBe('');
    expect(killsOfBody([k, k]).fieldPrefix(1)).toBe('[1].');
    expect(killsOfBody({ kills: [k] }).fieldPrefix(0)).toBe('kills[0].');
  });

  it('keeps the first of each killmail id, in input order', () => {
    expect(
      uniqueKills([
        { killmailId: 3, n: 1 },
        { killmailId: 1, n: 2 },
        { killmailId: 3, n: 3 },
      ]).map((k) => k.n),
    ).toEqual([1, 2]);
  });
});

describe('activity increments', () => {
  it('defaults omitted counters to 0 and refuses an increment of nothing', () => {
    expect(incrementOf({ passages: 2 })).toEqual({ passages: 2, connections: 0, signatures: 0 });
    expect(failure(() => incrementOf({ passages: 0 })).details).toEqual([
      { field: 'body', message: 'at least one of passages, connections, signatures must be positive' },
    ]);
  });
});
