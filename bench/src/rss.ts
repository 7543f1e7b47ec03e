/**
 * This process's peak resident memory while a step runs, for the memory targets of the export and
 * upload benchmarks.
 */

/**
 * Collects garbage when node exposes it (--expose-gc), waits `settleMs`, reads the idle RSS, then
 * samples the RSS every `everyMs` until `stop()`, which answers the peak seen and the idle, in bytes.
 */
export async function watchRss(o: { everyMs: number; settleMs?: number }): Promise<{ stop(): { idle: number; peak: number } }> {
  global.gc?.();
  if (o.settleMs) await new Promise((r) => setTimeout(r, o.settleMs));
  const idle = process.memoryUsage().rss;
  let peak = idle;
  const timer = setInterval(() => {
    peak = Math.max(peak, process.memoryUsage().rss);
  }, o.everyMs);
  return {
    stop() {
      clearInterval(timer);
      return { idle, peak };
    },
  };
}
