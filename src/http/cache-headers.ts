/**
 * The response headers of a map read that the map read cache serves (src/api/map-read-cache.ts): on its
 * 200 and on the 304 that answers an `If-None-Match` naming the current ETag. Every such route names
 * this one type, as `@SuccessResponse<{ [H in keyof CachedReadHeaders]: CachedReadHeaders[H] }>(200, …)`
 * and `@Response<void, { [H in keyof CachedReadHeaders]: CachedReadHeaders[H] }>(304, …)`: tsoa 6
 * documents a header type written by name as a single header of that name, and the mapped form makes it
 * list each property as a header, with its description, in this order.
 */
export interface CachedReadHeaders {
  /** `private, no-cache`: clients may keep the answer but must revalidate it before each use. */
  'Cache-Control': string;
  /** Strong validator of the body (a digest of its bytes): send it back in `If-None-Match` to revalidate. */
  ETag: string;
  /**
   * The id of the newest event of the map whose effect the answer includes (`0`: the map has no event),
   * read in the same snapshot as the answer: resume the stream from it (`last_event_id`, `Last-Event-ID`)
   * to get exactly the events after the answer, each once.
   */
  'Map-Event-Id': string;
}
