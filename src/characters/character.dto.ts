/** Public form of a character. */
export interface CharacterDto {
  /** External character id (the identifier used in ACL operations). */
  eve_id: string;
  name: string;
  corporation_id: string;
  corporation_ticker: string;
  alliance_id: string | null;
  alliance_ticker: string | null;
}
