import { describe, expect, it } from 'vitest';
import { connectedFrame, eventFrame, KEEPALIVE_FRAME, resetFrame, retryFrame } from '../../src/stream/sse-frames.js';
import { matchesFilter, parseEventFilter } from '../../src/events/event-filter.js';
import { ValidationError } from '../../src/common/errors.js';
import type { EventEnvelope } from '../../src/events/envelope.js';

const envelope: EventEnvelope = {
  id: '01JD0000000000000000000000',
  type: 'map_kill',
  map_id: '5b0f0000-0000-4000-8000-000000000000',
  ts: '2026-11-23T10:00:00.000Z',
  payload: { killmail_id: 1 },
};

describe('SSE frames (decisions §6)', () => {
  it('writes retry, connected (no id line), keepalive and reset frames exactly', () => {
    expect(retryFrame(3000)).toBe('retry: 3000\n\n');
    expect(connectedFrame(envelope.map_id, null, new Date('2026-11-23T10:00:01Z'))).toBe(
      `event: connected\ndata: {"map_id":"${envelope.map_id}","server_time":"2026-11-23T10:00:01.000Z","last_event_id":null}\n\n`,
    );
    expect(KEEPALIVE_FRAME).toBe(': keepalive\n\n');
    expect(resetFrame('retention', '01JD0000000000000000000001')).toBe(
      'event: reset\ndata: {"reason":"retention","earliest_event_id":"01JD0000000000000000000001"}\n\n',
    );
  });

  it('writes an event as id + data only, so EventSource.onmessage gets it', () => {
    expect(eventFrame(envelope)).toBe(`id: ${envelope.id}\ndata: ${JSON.stringify(envelope)}\n\n`);
    expect(eventFrame(envelope)).not.toContain('event:');
  });

  it('adds the event line and a timestamp for clients of the reference server', () => {
    const frame = eventFrame(envelope, true);
    expect(frame.startsWith(`id: ${envelope.id}\nevent: map_kill\ndata: `)).toBe(true);
    expect(JSON.parse(frame.split('data: ')[1]!)).toEqual({ ...envelope, timestamp: envelope.ts });
  });
});

describe('event filters', () => {
  it('takes * or nothing as every type', () => {
    expect(parseEventFilter(undefined)).toEqual({ all: true });
    expect(parseEventFilter('*')).toEqual({ all: true });
    expect(parseEventFilter('map_kill,*')).toEqual({ all: true });
  });

  it('takes a comma list (or repeated parameters) of catalog names', () => {
    const f = parseEventFilter(['map_kill, add_system', 'connection_added']);
    expect(matchesFilter(f, 'map_kill')).toBe(true);
    expect(matchesFilter(f, 'connection_added')).toBe(true);
    expect(matchesFilter(f, 'deleted_system')).toBe(false);
  });

  it('accepts character_updated, which only the reference server emits, matching nothing', () => {
    expect(parseEventFilter('character_updated')).toEqual({ all: false, types: new Set() });
  });

  it('takes the character and rally point events as catalog names', () => {
    const f = parseEventFilter('character_added,character_removed,characters_updated,rally_point_added,rally_point_removed,character_updated');
    expect(f).toEqual({
      all: false,
      types: new Set(['character_added', 'character_removed', 'characters_updated', 'rally_point_added', 'rally_point_removed']),
    });
    expect(matchesFilter(f, 'rally_point_removed')).toBe(true);
    expect(matchesFilter(f, 'map_kill')).toBe(false);
  });

  it('refuses an unknown name with a 400 that lists the valid ones', () => {
    try {
      parseEventFilter('map_kill,nope');
      throw new Error('expected a ValidationError');
    } catch (err) {
      expect(err).toBeInstanceOf(ValidationError);
      const detail = (err as ValidationError).details![0]!;
      expect(detail.field).toBe('events');
      expect(detail.message).toMatch(/^unknown event type "nope"; valid: \*, add_system, deleted_system, /);
      // The names accepted for clients of the reference server are listed too.
      expect(detail.message).toMatch(/acl_member_updated, character_added, character_removed, characters_updated, rally_point_added, rally_point_removed /);
      expect(detail.message).toMatch(/\(also accepted, never sent by this service: character_updated\)$/);
    }
  });
});
