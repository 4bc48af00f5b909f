import { Counter, type Registry } from 'prom-client';

// The per-request families of node-server's metrics sink (metrics.ts), counted in plain numbers on the hot path and
// handed to prom-client's registry only when a scrape collects them.

type Labels = Record<string, string>;

/**
 * A counter counted in plain numbers by one string key per series and handed to prom-client when a scrape collects
 * it (the difference since the last scrape), so the hot path never builds or hashes a label object.
 */
export function syncedCounter(registry: Registry, name: string, help: string, labelNames: string[]) {
  const series = new Map<string, Series>();
  const all: Series[] = [];
  new Counter({
    name,
    help,
    labelNames,
    registers: [registry],
    collect() {
      for (const s of all) {
        if (s.read) s.count = s.read();
        const delta = s.count - s.reported;
        // A series opened and not yet counted is shown at 0 from the first scrape, so increase() sees its first rise.
        if (delta > 0 || !s.shown) {
          this.inc(s.labels, delta);
          s.reported = s.count;
          s.shown = true;
        }
      }
    },
  });
  const open = (labels: Labels, read?: () => number): Series => {
    const s: Series = { labels, count: 0, reported: 0, shown: false, ...(read ? { read } : {}) };
    all.push(s);
    return s;
  };
  return {
    /**
     * A new series: the caller keeps it and adds to `count`, or, with `read`, a series whose count is read from the
     * caller's own tally at each scrape.
     */
    open,
    /** The series whose one label `label` has the value `value`. */
    series: (label: string, value: string): Series => seriesOf(label, value),
    /** Add to the series whose one label `label` has the value `value` (no object or closure built per call). */
    add(label: string, value: string, n: number): void {
      seriesOf(label, value).count += n;
    },
  };
  function seriesOf(label: string, value: string): Series {
    let s = series.get(value);
    if (!s) {
      s = open({ [label]: value });
      series.set(value, s);
    }
    return s;
  }
}

export interface Series {
  labels: Labels;
  count: number;
  reported: number;
  /** Whether a scrape has shown the series (at 0 or more). */
  shown: boolean;
  /** Where the count is read from at each scrape, when the caller keeps its own tally. */
  read?: () => number;
}

interface GroupCounts {
  /** Per bucket (not cumulative), the last one above the highest bound. */
  counts: number[];
  sum: number;
  count: number;
}

/**
 * A histogram by route group, kept as plain bucket counts and written out by the registry in prom-client's own
 * format (`get()`): prom-client's Histogram validates and hashes its labels on every observe.
 */
export class GroupHistogram {
  readonly type = 'histogram';
  readonly aggregator = 'sum';
  private readonly groups = new Map<string, GroupCounts>();

  constructor(
    readonly name: string,
    readonly help: string,
    private readonly bounds: readonly number[],
  ) {}

  observe(group: string, value: number): void {
    this.record(this.group(group), value, 1);
  }

  /** The counts of one group (kept by a prepared tally, so it records without a lookup). */
  group(group: string): GroupCounts {
    let g = this.groups.get(group);
    if (!g) {
      g = { counts: new Array<number>(this.bounds.length + 1).fill(0), sum: 0, count: 0 };
      this.groups.set(group, g);
    }
    return g;
  }

  /** One time that stands for `weight` answers (a sampled kept answer's; 1 otherwise). */
  record(g: GroupCounts, value: number, weight: number): void {
    const bounds = this.bounds;
    let i = 0;
    while (i < bounds.length && value > (bounds[i] as number)) i++;
    g.counts[i] = (g.counts[i] as number) + weight;
    g.sum += value * weight;
    g.count += weight;
  }

  async get() {
    const values: Array<{ labels: Record<string, string | number>; value: number; metricName: string }> = [];
    for (const [group, g] of this.groups) {
      let cumulative = 0;
      this.bounds.forEach((le, i) => {
        cumulative += g.counts[i] ?? 0;
        values.push({ labels: { group, le }, value: cumulative, metricName: `${this.name}_bucket` });
      });
      values.push({ labels: { group, le: '+Inf' }, value: g.count, metricName: `${this.name}_bucket` });
      values.push({ labels: { group }, value: g.sum, metricName: `${this.name}_sum` });
      values.push({ labels: { group }, value: g.count, metricName: `${this.name}_count` });
    }
    return { name: this.name, help: this.help, type: this.type, aggregator: this.aggregator, values };
  }
}
