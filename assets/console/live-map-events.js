/*
 * The event list's sentences: one per event type, as a mapper reads them ("Connection J104859 ⇄ Thera
 * added (K162, wormhole)"), with the system names the payload carries or, failing that, the names the
 * map knows (`nameOf(solar_system_id)`). An unknown type reads as its type name.
 */
(() => {
  'use strict';
  const MASS = ['normal mass', 'half mass', 'critical mass'];
  const SIZE = ['small', 'medium', 'large', 'freighter', 'capital'];
  const TIME = ['fresh', 'end of life (1 h)', 'end of life (4 h)', 'end of life (4.5 h)', 'end of life (16 h)', 'end of life (24 h)', 'end of life (48 h)'];
  const KIND = ['wormhole', 'stargate', 'jump bridge'];
  const STATUS = ['clear', 'home', 'friendly', 'looking for', 'warning', 'target', 'dangerous'];

  const isk = (v) => (v >= 1e9 ? (v / 1e9).toFixed(2) + 'B' : (v / 1e6).toFixed(1) + 'M') + ' ISK';

  /** What changed in a system_metadata_changed, in words. */
  function systemChanges(p) {
    const parts = [];
    for (const f of p.changed || []) {
      if (f === 'status') parts.push('status ' + (STATUS[p.status] ?? p.status));
      else if (f === 'tag') parts.push(p.tag ? 'tag ' + p.tag : 'tag cleared');
      else if (f === 'custom_name') parts.push(p.custom_name ? 'renamed “' + p.custom_name + '”' : 'custom name cleared');
      else if (f === 'position_x' || f === 'position_y') {
        if (!parts.includes('moved')) parts.push('moved');
      } else if (f === 'visible') parts.push(p.visible ? 'shown' : 'hidden');
      else if (f === 'locked') parts.push(p.locked ? 'locked' : 'unlocked');
      else parts.push(f.replace(/_/g, ' ') + ' changed');
    }
    return parts.length ? parts.join(', ') : 'updated';
  }

  function connectionFacts(p) {
    return [p.wormhole_type, KIND[p.type] ?? 'wormhole', MASS[p.mass_status], SIZE[p.ship_size_type], TIME[p.time_status]].filter(Boolean).join(', ');
  }

  /** One sentence for an event envelope. */
  function describeEvent(e, nameOf) {
    const p = e.payload || {};
    const sys = (id, carried) => carried || (nameOf && nameOf(id)) || String(id);
    const link = () => sys(p.solar_system_source, p.from_name) + ' ⇄ ' + sys(p.solar_system_target, p.to_name);
    switch (e.type) {
      case 'add_system':
        return 'System ' + p.name + ' added.';
      case 'deleted_system':
        return 'System ' + p.name + ' removed.';
      case 'system_metadata_changed':
        return 'System ' + (p.custom_name || p.name) + ': ' + systemChanges(p) + '.';
      case 'connection_added':
        return 'Connection ' + link() + ' added (' + connectionFacts(p) + ').';
      case 'connection_updated':
        return 'Connection ' + link() + ' updated: ' + connectionFacts(p) + '.';
      case 'connection_removed':
        return 'Connection ' + link() + ' removed.';
      case 'signature_added':
        return 'Signature ' + p.signature_id + ' added in ' + sys(p.solar_system_id) + (p.group ? ' (' + [p.group, p.name].filter(Boolean).join(', ') + ')' : '') + '.';
      case 'signature_removed':
        return 'Signature ' + p.signature_id + ' removed from ' + sys(p.solar_system_id) + '.';
      case 'signatures_updated':
        return 'Signatures of ' + sys(p.solar_system_id) + ' updated: ' + p.added_count + ' added, ' + p.updated_count + ' updated, ' + p.removed_count + ' removed.';
      case 'map_kill': {
        const v = p.victim || {};
        return 'Kill in ' + sys(p.solar_system_id, p.system_name) + ': ' + (v.ship || 'a ship') + ' of ' + (v.name || 'someone') + (v.corporation ? ' [' + v.corporation + ']' : '') + (p.value ? ', ' + isk(p.value) : '') + '.';
      }
      case 'acl_member_added':
        return 'Access list: ' + p.member_name + ' (' + p.member_type + ') added as ' + p.role + '.';
      case 'acl_member_removed':
        return 'Access list: ' + p.member_name + ' (' + p.member_type + ') removed.';
      case 'acl_member_updated':
        return 'Access list: ' + p.member_name + ' (' + p.member_type + ') is now ' + p.role + '.';
      case 'character_added':
        return 'Character ' + p.name + (p.corporation_ticker ? ' [' + p.corporation_ticker + ']' : '') + ' now tracked.';
      case 'character_removed':
        return 'Character ' + p.name + ' no longer tracked.';
      case 'characters_updated': {
        const names = (p.characters || []).map((c) => c.name);
        return 'Characters updated: ' + (names.length ? names.join(', ') : 'none') + '.';
      }
      case 'rally_point_added':
        return 'Rally point in ' + sys(p.solar_system_id, p.system_name) + ' by ' + p.character_name + (p.message ? ': “' + p.message + '”' : '') + '.';
      case 'rally_point_removed':
        return 'Rally point in ' + sys(p.solar_system_id, p.system_name) + ' removed.';
      case 'reset':
        return 'The stream could not resume (' + (p.reason || 'reset') + '): the map was read again.';
      default:
        return e.type + '.';
    }
  }

  window.MapintelLiveMapEvents = { describeEvent, connectionFacts, MASS, SIZE, TIME, KIND };
})();
