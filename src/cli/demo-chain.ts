/**
 * The demo map's picture: a wormhole chain of real systems (all of them in the static data sample, so
 * the demo draws the same chain offline and with the full set), laid out left to right from a home
 * hole, with connections of every mass and time status and ship size, signatures and recent kills.
 */

/** A system of the chain: solar system id and canvas position, with what makes it stand out. */
export interface DemoSystem {
  id: number;
  x: number;
  y: number;
  status?: number;
  tag?: string;
  customName?: string;
  description?: string;
}

const COL = 240;
const ROW = 110;
const at = (col: number, row: number) => ({ x: 80 + col * COL, y: 60 + row * ROW });

/** Home first; status values are decisions §3 (1 home, 2 friendly, 3 looking_for, 4 warning, 5 target, 6 dangerous). */
export const DEMO_SYSTEMS: DemoSystem[] = [
  { id: 31002367, ...at(0, 3), status: 1, tag: 'HOME', description: 'Home system' }, // J104859
  { id: 31000356, ...at(1, 1.2), tag: 'A', customName: 'Static' }, // J125227
  { id: 31001880, ...at(1, 4.8), tag: 'B' }, // J152820
  { id: 31000881, ...at(2, 0) }, // J114342
  { id: 31000008, ...at(2, 2), status: 3 }, // J100744
  { id: 31001361, ...at(2, 4), status: 2 }, // J112747
  { id: 31002595, ...at(2, 6), status: 4 }, // J000685
  { id: 31000005, ...at(3, 0) }, // Thera
  { id: 31002505, ...at(3, 2), status: 5, description: 'Hostiles seen on d-scan' }, // J015092
  { id: 31001376, ...at(3, 3.4) }, // J210458
  { id: 30002420, ...at(3, 4.8) }, // Egbinger
  { id: 31000001, ...at(3, 6), status: 6 }, // Sentinel MZ
  { id: 30000142, ...at(4, -0.6), tag: 'MKT' }, // Jita
  { id: 30000021, ...at(4, 0.6), status: 6 }, // Kuharah
  { id: 30000619, ...at(4, 2) }, // BLMX-B
  { id: 30000326, ...at(4, 3.4) }, // WF-1LM
  { id: 30003539, ...at(4, 4.8) }, // Miakie
  { id: 30004550, ...at(5, 2) }, // A2V6-6
  { id: 30100000, ...at(5, 3.4) }, // Zarzakh
];

/** A connection by the positions of its ends in DEMO_SYSTEMS; values are decisions §3. */
export interface DemoConnection {
  from: number;
  to: number;
  /** 0 wormhole, 1 stargate, 2 jump bridge */
  type?: number;
  /** 0 normal, 1 half, 2 critical */
  mass?: number;
  /** 0 normal, 1–6 end of life */
  time?: number;
  /** 0 small … 4 capital; 2 large by default */
  size?: number;
  wh?: string | null;
}

export const DEMO_CONNECTIONS: DemoConnection[] = [
  { from: 0, to: 1, wh: 'D382' },
  { from: 0, to: 2, mass: 1, wh: 'K162' },
  { from: 1, to: 3, time: 2, wh: 'N110' },
  { from: 1, to: 4, size: 1, wh: 'B274' },
  { from: 2, to: 5, mass: 2, wh: 'E545' },
  { from: 2, to: 6, size: 0, wh: 'K162' },
  { from: 3, to: 7, wh: 'F135' },
  { from: 7, to: 12, size: 3, wh: 'Q063' },
  { from: 7, to: 13, mass: 1, time: 1, wh: 'K162' },
  { from: 4, to: 8, size: 4, wh: 'H296' },
  { from: 8, to: 14, wh: 'K162' },
  { from: 5, to: 9, wh: 'O477' },
  { from: 5, to: 10, time: 3, wh: 'K162' },
  { from: 6, to: 11, size: 1, wh: 'K162' },
  { from: 9, to: 15, mass: 2, wh: 'K162' },
  { from: 10, to: 16, type: 1, size: 4, wh: null },
  { from: 14, to: 17, wh: 'K162' },
  { from: 15, to: 18, type: 1, size: 4, wh: null },
];

/** Signatures by the position of their system in DEMO_SYSTEMS. */
export const DEMO_SIGNATURES: { system: number; signatures: { signature_id: string; kind: string; group: string; type?: string; name?: string }[] }[] = [
  {
    system: 0,
    signatures: [
      { signature_id: 'ABC-123', kind: 'Cosmic Signature', group: 'Wormhole', type: 'D382' },
      { signature_id: 'KLM-456', kind: 'Cosmic Signature', group: 'Wormhole', type: 'K162' },
      { signature_id: 'GAS-101', kind: 'Cosmic Signature', group: 'Gas Site', name: 'Barren Perimeter Reservoir' },
      { signature_id: 'DAT-202', kind: 'Cosmic Signature', group: 'Data Site', name: 'Unsecured Perimeter Amplifier' },
    ],
  },
  {
    system: 7,
    signatures: [
      { signature_id: 'THR-001', kind: 'Cosmic Signature', group: 'Wormhole', type: 'Q063' },
      { signature_id: 'THR-002', kind: 'Cosmic Signature', group: 'Wormhole', type: 'K162' },
      { signature_id: 'REL-303', kind: 'Cosmic Signature', group: 'Relic Site', name: 'Forgotten Perimeter Coronation Platform' },
    ],
  },
  { system: 1, signatures: [{ signature_id: 'XYZ-789', kind: 'Cosmic Signature', group: 'Wormhole', type: 'N110' }] },
];

/** Where the demo's kills happened (positions in DEMO_SYSTEMS), newest first. */
export const DEMO_KILL_SYSTEMS = [7, 7, 5, 12, 7, 11, 5, 12];
