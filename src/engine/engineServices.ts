import { Archiver } from './archiver';
import { ChainCoordinator } from './chainCoordinator';
import { Dispatcher } from './dispatcher';
import type { EngineDeps } from './engine';
import { Exporter } from './exporter';
import type { Services } from './handlers';
import { HeartbeatService } from './heartbeats';
import { MessageBus } from './messageBus';
import { Monitor } from './monitor';
import { OverlapForecast } from './overlaps/overlapForecast';
import { engineLeaseClock } from './ownerLease';
import type { Clock } from './ports';
import { QueuePicker } from './queuePicker';
import { StateService } from './stateService';
import { TaskCatalog } from './taskCatalog';
import { offsetLeaseClock } from './teamView';

/** How often status measures the lease clock (the server's) against this process's: teamView.ts. */
const statusClockEveryMs = 10_000;

/**
 * The engine's services, wired by hand over its settings and ports (the engine's own composition;
 * src/host composes the engine itself). `leaseHolder` says whose lease the work handed out hangs
 * on: this owner's once its lease runs (engineBackground.ts).
 */
export function createServices(deps: EngineDeps, clock: Clock, leaseHolder: () => string | undefined): Services {
  const { settings } = deps;
  const picker = new QueuePicker({
    leaseMs: settings.liveness.staleMs,
    branchTemplate: settings.branchTemplate,
    recordInClaim: deps.store.dialect === 'postgres',
  });
  const catalog = new TaskCatalog(settings.defaultMaxAttempts, deps.random);
  const chains = new ChainCoordinator(catalog);
  const state = new StateService(
    {
      defaultMaxAttempts: settings.defaultMaxAttempts,
      backoff: settings.backoff,
      leaseMs: settings.liveness.staleMs,
      ...(deps.owner ? { owner: deps.owner } : {}),
      leaseHolder,
    },
    picker,
    chains,
  );
  const monitor = new Monitor(settings, state);
  const agents = deps.agents;
  const exporter = new Exporter(deps.exports);
  const forecast = new OverlapForecast();
  if (agents) monitor.useSignals((workerId) => agents.signals(workerId));
  return {
    state,
    catalog,
    chains,
    monitor,
    picker,
    dispatcher: new Dispatcher(
      { concurrency: settings.concurrency, teamConcurrency: settings.teamConcurrency },
      picker,
      state,
      deps.owner?.host,
      forecast,
    ),
    heartbeats: new HeartbeatService(settings.liveness.staleMs),
    bus: new MessageBus(settings, deps.blobs),
    forecast,
    exporter,
    archiver: new Archiver(deps.archive, exporter),
    retainFinishedMs: settings.retainFinishedMs,
    // Status shows a shared store's owners, their leases judged by the clock the leases are kept by.
    team: deps.owner
      ? {
          leaseMs: settings.ownerLeaseMs,
          clock: offsetLeaseClock(deps.leaseClock ?? engineLeaseClock(clock), () => clock.now(), statusClockEveryMs),
        }
      : undefined,
  };
}
