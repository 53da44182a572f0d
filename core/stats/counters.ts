/**
 * Named counters with namespaced names (`fetch.status.429`, `traps.rejected.too-deep`), the one way every
 * component reports what happened. Plain numbers in a Map: cheap on the hot path, and `toJSON` gives the
 * stable, sorted view that stats, logs and the metrics endpoint print.
 */
export class Counters {
  private readonly values = new Map<string, number>();

  add(name: string, by = 1): void {
    this.values.set(name, (this.values.get(name) ?? 0) + by);
  }

  get(name: string): number {
    return this.values.get(name) ?? 0;
  }

  /** Sum of every counter whose name starts with `prefix`. */
  sum(prefix: string): number {
    let total = 0;
    for (const [k, v] of this.values) if (k.startsWith(prefix)) total += v;
    return total;
  }

  toJSON(): Record<string, number> {
    return Object.fromEntries([...this.values].sort(([a], [b]) => a.localeCompare(b)));
  }
}
