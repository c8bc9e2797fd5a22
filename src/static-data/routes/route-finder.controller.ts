import { Body, Controller, Post, Response, Route, Tags } from '@tsoa/runtime';
import type { ErrorResponse } from '../../http/error.dto.js';
import { DEPENDENCY_UNAVAILABLE_EXAMPLE, RATE_LIMITED_EXAMPLE } from '../../http/error-examples.js';
import type { ClosestRoutesService } from './closest-routes.service.js';
import type { FindClosestRequest, FindClosestResponse } from './routes.dto.js';

/** The reference server's route finder (`/route/findClosest`); no authentication, as there. */
@Route('route')
@Tags('Routes')
export class RouteFinderController extends Controller {
  constructor(private readonly routes: ClosestRoutesService) {
    super();
  }

  /**
   * The routes from `origin` to the `count` closest destinations of a set (`type`: trade hubs, or the
   * systems the given connections link to Thera or Turnur; or `destinations` named one by one), over the
   * stargates of the static data and the given connections, each usable both ways. `flag` weighs the
   * jumps as the game's route planner does: `shortest` counts jumps; `secure` and `insecure` charge 1808
   * for a jump into a system of the unwanted security (high-sec is a security shown as 0.5 or more).
   * Systems in `avoid` are never entered. Closest first; a destination without a route is not listed.
   * Needs no token.
   * @summary Routes to the closest destinations
   */
  @Post('findClosest')
  @Response<ErrorResponse>(
    400,
    'Malformed body, an unknown `flag` or `type`, neither or both of `type` and `destinations` (`validation_failed`, the field in details)',
    {
      error: 'Request validation failed',
      code: 'validation_failed',
      details: [{ field: 'type', message: 'give either `type` or `destinations`' }],
    },
  )
  @Response<ErrorResponse>(404, 'The static data has no such origin', {
    error: 'System not found',
    code: 'system_not_found',
    details: [{ field: 'origin', message: '1 is not a solar system of the static data' }],
  })
  @Response<ErrorResponse>(429, 'Rate limit exceeded, per client address (see Retry-After)', RATE_LIMITED_EXAMPLE)
  @Response<ErrorResponse>(503, 'Database unavailable (see Retry-After)', DEPENDENCY_UNAVAILABLE_EXAMPLE)
  public async findClosest(@Body() body: FindClosestRequest): Promise<FindClosestResponse> {
    return this.routes.findClosest(body);
  }
}
