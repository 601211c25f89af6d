/**
 * Preloaded into a `foreman serve` by a bench (`--import`): how long the owner's thread was held
 * in one turn. It watches the event loop's delay (perf_hooks, 1 ms resolution): a turn that holds
 * the thread for n ms delays the watcher's next tick by about n ms. Each SIGUSR2 writes the window
 * since the last one (max, p99, mean, in ms) to FOREMAN_BENCH_TURNS_FILE and starts a new window,
 * so the bench leaves the start (loading the image) out of the measured one.
 */
import * as fs from 'node:fs';
import { monitorEventLoopDelay } from 'node:perf_hooks';

const file = process.env.FOREMAN_BENCH_TURNS_FILE;
if (file) {
  const histogram = monitorEventLoopDelay({ resolution: 1 });
  histogram.enable();
  process.on('SIGUSR2', () => {
    const ms = (ns) => Math.round(ns / 1e4) / 100;
    const window = { maxMs: ms(histogram.max), p99Ms: ms(histogram.percentile(99)), meanMs: ms(histogram.mean), samples: histogram.count };
    histogram.reset();
    fs.writeFileSync(`${file}.tmp`, JSON.stringify(window));
    fs.renameSync(`${file}.tmp`, file);
  });
}
