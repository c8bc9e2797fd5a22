/** Migrations in order. Listed explicitly so the same list runs from TypeScript sources and the build. */
import { Migration20261122155358_initial } from './Migration20261122155358_initial.js';

export const MIGRATIONS = [{ name: 'Migration20261122155358_initial', class: Migration20261122155358_initial }];
