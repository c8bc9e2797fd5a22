/**
 * The route graph of this process: read from the database on first use (the solar systems and
 * `solar_system_jumps`, about 22,000 rows for the full data) and kept. An import in this process is seen
 * at the next search, which waits for the new graph; an import by another process (`mapintel sde
 * import` beside running servers) is seen by its stamp (`static_data_imports`), which is read in the
 * background at most once per revalidation period: the old graph keeps answering until the new one is
 * read. A process started before the first import finds an empty graph and the import within a period.
 */
import type { Db } from '../../db/db.js';
import { importsCommitted } from '../sde-importer.js';
import { SolarSystemRepository } from '../solar-system.repository.js';
import { StargateJumpRepository, StaticDataImportRepository } from '../stargate-jumps.js';
import { RouteFinder } from './route-finder.js';
import { RouteGraph } from './route-graph.js';

/** How often a process checks whether another one imported static data since it read the graph. */
export const GRAPH_REVALIDATION_MS = 30_000;

interface Loaded {
  finder: RouteFinder;
  /** The import stamp read before the rows. */
  stamp: string | null;
  /** importsCommitted() when the rows were read. */
  imports: number;
  checkedAt: number;
}

export class RouteGraphSource {
  private current: Loaded | undefined;
  private loading: Promise<Loaded> | undefined;
  private checking = false;

  constructor(
    private readonly db: Db,
    private readonly revalidateMs = GRAPH_REVALIDATION_MS,
    private readonly systems = new SolarSystemRepository(),
    private readonly jumps = new StargateJumpRepository(),
    private readonly stamps = new StaticDataImportRepository(),
  ) {}

  /** The finder over the current graph (see the file's comment for when it is read anew). */
  async finder(): Promise<RouteFinder> {
    const loaded = this.current;
    if (!loaded || loaded.imports !== importsCommitted()) return (await this.load()).finder;
    if (Date.now() - loaded.checkedAt >= this.revalidateMs) this.revalidate(loaded);
    return loaded.finder;
  }

  private load(): Promise<Loaded> {
    this.loading ??= this.read()
      .then((loaded) => (this.current = loaded))
      .finally(() => (this.loading = undefined));
    return this.loading;
  }

  private async read(): Promise<Loaded> {
    const imports = importsCommitted();
    // The stamp before the rows: an import committed in between shows as a newer stamp at the next check.
    const stamp = await this.stamps.last(this.db);
    const [systems, jumps] = await Promise.all([this.systems.forRoutes(this.db), this.jumps.all(this.db)]);
    return { finder: new RouteFinder(new RouteGraph(systems, jumps.from, jumps.to)), stamp, imports, checkedAt: Date.now() };
  }

  /** In the background; a failed check is tried again a period later, the graph in hand answering meanwhile. */
  private revalidate(loaded: Loaded): void {
    if (this.checking) return;
    this.checking = true;
    loaded.checkedAt = Date.now();
    this.stamps
      .last(this.db)
      .then((stamp) => (stamp !== loaded.stamp ? this.load() : undefined))
      .catch(() => undefined)
      .finally(() => (this.checking = false));
  }
}
