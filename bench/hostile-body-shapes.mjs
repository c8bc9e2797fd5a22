// The refused bodies of `make bench-hostile-bodies` (bench/hostile-bodies.mjs), also sent by
// test/api/unknown-fields-cost.test.ts:
// - `nested`: `[`×n + `]`×n, nesting far past the limit;
// - `unknown-fields`: a kill import of 200 well-formed kills, each carrying as many unknown fields as it
//   takes for the body to reach the size asked for (620 KB: about 200 per kill, 40,000 in all).

/** One well-formed kill of a batch import (POST /api/maps/{map_id}/kills). */
function kill(i) {
  return {
    killmail_id: 100_000_000 + i,
    kill_time: '2026-11-20T10:00:00Z',
    solar_system_id: 31000005,
    attacker_count: 3,
    npc: false,
    total_value: 1_000_000,
    zkb: {
      awox: false,
      destroyedValue: 1,
      droppedValue: 1,
      fittedValue: 1,
      hash: 'abc',
      labels: [],
      locationID: 1,
      npc: false,
      points: 1,
      solo: false,
      totalValue: 1,
    },
  };
}

/** A kill import of 200 kills with unknown fields added until the body is about `bytes` long. */
export function unknownFieldsBody(bytes = 620_000, kills = 200) {
  const base = JSON.stringify({ kills: Array.from({ length: kills }, (_, i) => kill(i)) }).length;
  // `"unknown_field_123":123456,` is 27 bytes.
  const perKill = Math.max(1, Math.floor((bytes - base) / kills / 27));
  const items = Array.from({ length: kills }, (_, i) => {
    const k = kill(i);
    for (let f = 0; f < perKill; f++) k[`unknown_field_${String(f).padStart(3, '0')}`] = 100_000 + f;
    return k;
  });
  return JSON.stringify({ kills: items });
}

/** `[`×half + `]`×half. */
export function nestedBody(bytes = 1_000_000) {
  const half = Math.floor(bytes / 2);
  return '['.repeat(half) + ']'.repeat(half);
}

/** The body of a shape by name. */
export function hostileBody(shape, bytes) {
  if (shape === 'nested') return nestedBody(bytes);
  if (shape === 'unknown-fields') return unknownFieldsBody(bytes);
  throw new Error(`unknown body shape "${shape}" (nested, unknown-fields)`);
}
