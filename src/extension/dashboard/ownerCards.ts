import type { StatusSnapshot } from '../../engine/statusView';
import type { OwnerCard } from '../../shared/protocol';

/** A shared store's owners (issue 29), each with how many of its machine's workers there are and hold a task. */
export function ownerCards(status: StatusSnapshot): OwnerCard[] {
  return status.owners.slice(0, 200).map((owner) => {
    const here = status.workers.filter((worker) => worker.host === owner.host);
    return {
      id: owner.id,
      host: owner.host,
      pid: owner.pid,
      startedAt: owner.startedAt,
      renewedAt: owner.renewedAt,
      alive: owner.alive,
      goneSince: owner.goneSince,
      workTakenBackAt: owner.workTakenBackAt,
      workers: here.length,
      busy: here.filter((worker) => worker.taskId !== null).length,
    };
  });
}
