/** One setting of the service: name, meaning, default (as the docs write it) and unit. */
export interface Setting {
  name: string;
  meaning: string;
  /** Default as written in the docs; '' means unset. */
  default: string;
  unit: string;
}
