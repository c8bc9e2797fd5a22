/** Reading a process's Prometheus text (`/metrics` on its ops port) in tests. */

/** The sum of every series of `name` (all label values), or undefined when the metric is absent. */
export function metricSum(text: string, name: string): number | undefined {
  let sum: number | undefined;
  for (const m of text.matchAll(new RegExp(`^${name}(?:\\{[^}]*\\})? (\\S+)$`, 'gm'))) sum = (sum ?? 0) + Number(m[1]);
  return sum;
}

/** Scrapes `/metrics` of an ops URL. */
export async function scrape(opsUrl: string): Promise<string> {
  return (await fetch(`${opsUrl}/metrics`)).text();
}
