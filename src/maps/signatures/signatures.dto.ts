/**
 * API models of map signatures (spec section 2 and the editing API `/api/maps/{map_id}/…`). Field names
 * and types are the public contract; request fields carry their validation (tsoa JSDoc annotations), so
 * the OpenAPI document and the 400 `validation_failed` answers agree. Enumerations: decisions §3.
 */

/** A cosmic signature of a map system. */
export interface SignatureDto {
  /** Record id. @format uuid */
  id: string;
  /** @isInt */
  solar_system_id: number;
  /** In-game signature id, upper-case, e.g. `ABC-123`. */
  signature_id: string;
  name: string | null;
  /** e.g. `Cosmic Signature`, `Cosmic Anomaly`. */
  kind: string | null;
  /** e.g. `Wormhole`, `Data Site`, `Relic Site`, `Gas Site`, `Ore Site`, `Combat Site`. */
  group: string | null;
  /** e.g. a wormhole type code such as `K162`. */
  type: string | null;
  description: string | null;
  /** eve_id of the character whose key added or last changed the signature. */
  character_eve_id: string | null;
  /** Solar system id the signature leads to (wormholes), or null. @isInt */
  linked_system_id: number | null;
  /** ISO 8601 UTC, microseconds. */
  inserted_at: string;
  /** ISO 8601 UTC, microseconds. */
  updated_at: string;
}

/** One signature to add or update; omitted fields of an existing signature are left as they are, null clears. */
export interface SignatureInput {
  /**
   * In-game signature id: three letters, a dash, three digits (`ABC-123`); any case, stored upper-case.
   * @pattern ^[A-Za-z]{3}-[0-9]{3}$
   */
  signature_id: string;
  /** @maxLength 255 */
  name?: string | null;
  /**
   * e.g. `Cosmic Signature`, `Cosmic Anomaly`.
   * @maxLength 64
   */
  kind?: string | null;
  /**
   * e.g. `Wormhole`, `Data Site`.
   * @maxLength 64
   */
  group?: string | null;
  /**
   * e.g. a wormhole type code such as `K162`.
   * @maxLength 64
   */
  type?: string | null;
  /** @maxLength 10000 */
  description?: string | null;
  /**
   * Solar system id the signature leads to; must be a system on the map. Null clears it.
   * @isInt
   * @minimum 0
   * @maximum 2147483647
   */
  linked_system_id?: number | null;
}

/** Batch upsert of one system's signatures. */
export interface UpsertSignaturesRequest {
  /**
   * 0 to 500 signatures, each signature id at most once.
   * @maxItems 500
   */
  signatures: SignatureInput[];
  /** When true, signatures of the system not listed are removed. Default false. */
  replace?: boolean;
}

/** Outcome of a signature batch. */
export interface SignaturesUpdatedDto {
  /** @isInt */
  solar_system_id: number;
  /** Signatures that were new. @isInt */
  added_count: number;
  /** Listed signatures that existed and whose fields changed. @isInt */
  updated_count: number;
  /** Signatures removed (with `replace: true`). @isInt */
  removed_count: number;
  /** Every signature of the system after the batch. */
  signatures: SignatureDto[];
}

/** The system a signature leads to. */
export interface LinkSignatureRequest {
  /**
   * Solar system id of a visible system of the map (the other end of the signature's wormhole).
   * @isInt
   * @minimum 0
   * @maximum 2147483647
   */
  solar_system_target: number;
}
