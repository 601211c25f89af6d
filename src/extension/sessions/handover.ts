/**
 * Asking the owning window to hand over (issue 11 item 1). code-server keeps a window's extension
 * host running for its reconnection grace after the tab's connection drops; that host still owns the
 * workspace though nobody sees it. A read-only window writes a request file into `.foreman/`; the
 * owner answers in a reply file, and, when it grants, releases the owner lock, which the requester
 * sees as "the owner went away" and takes over. Files, not the endpoint: the endpoint carries the
 * engine's requests, and this is about who runs the engine. No `vscode` here, so it is tested with
 * real files; the window decides through `decide`.
 */
import { randomUUID } from 'node:crypto';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { z } from 'zod';
import { DisposableStore } from '../../base/lifetime';
import { type Clock, systemClock } from '../../engine/ports';
import { readOwner } from '../../host/endpointAccess';
import { writeFileAtomic } from '../../host/infraParts';

const requestName = 'handover.request';
const replyName = 'handover.reply';
const grantName = 'handover.granted';
/** How long the other read-only windows leave the lock to the window a handover was granted to. */
const grantMs = 15_000;
/** A request older than this is left over from a window that gave up; nobody answers it. */
const requestLifetimeMs = 30_000;

const requestSchema = z.object({ id: z.string().uuid(), pid: z.number().int(), host: z.string(), at: z.number() });
const replySchema = z.object({ id: z.string().uuid(), granted: z.boolean(), reason: z.string() });
const grantSchema = z.object({ pid: z.number().int(), host: z.string(), until: z.number() });

/** A window's request to take over ownership. */
export type HandoverRequest = z.infer<typeof requestSchema>;
/** The owner's answer: granted (it releases the lock next) or refused with a reason a person reads. */
export interface HandoverDecision {
  readonly granted: boolean;
  readonly reason: string;
}

function readJson<T>(file: string, schema: z.ZodType<T>): T | undefined {
  try {
    const parsed = schema.safeParse(JSON.parse(fs.readFileSync(file, 'utf8')));
    return parsed.success ? parsed.data : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Asks the owner of `foremanDir` to hand over and waits for its answer. Granted means the owner has
 * also let go of the lock (so the caller can take it); anything else says why not.
 */
export async function requestHandover(
  foremanDir: string,
  options: { readonly timeoutMs: number; readonly clock?: Clock },
): Promise<HandoverDecision> {
  const clock = options.clock ?? systemClock;
  const owner = readOwner(foremanDir);
  if (!owner) return { granted: true, reason: 'nobody owns the workspace' };
  const request: HandoverRequest = { id: randomUUID(), pid: process.pid, host: os.hostname(), at: Date.now() };
  const requestFile = path.join(foremanDir, requestName);
  const replyFile = path.join(foremanDir, replyName);
  writeFileAtomic(requestFile, JSON.stringify(request));
  const answered = await new Promise<HandoverDecision>((resolve) => {
    const waiting = new DisposableStore();
    const finish = (decision: HandoverDecision) => {
      waiting.dispose();
      resolve(decision);
    };
    const look = () => {
      const reply = readJson(replyFile, replySchema);
      if (reply?.id === request.id && !reply.granted) finish(reply);
      // Granted counts once the lock is gone: only then can this window take it.
      if (reply?.id === request.id && reply.granted && readOwner(foremanDir)?.pid !== owner.pid) finish(reply);
    };
    waiting.add(
      clock.setTimeout(
        () =>
          finish({
            granted: false,
            reason: `the owner (pid ${owner.pid}, ${owner.role}) did not answer within ${Math.round(options.timeoutMs / 1000)} s`,
          }),
        options.timeoutMs,
      ),
    );
    // The lock is released after the reply is written; a watch event may come before either.
    waiting.add(clock.every(look, 250));
    try {
      const watcher = fs.watch(foremanDir, look);
      waiting.add({ dispose: () => watcher.close() });
    } catch {
      // No watch here: the lock check above still sees the answer.
    }
    look();
  });
  for (const file of [requestFile, replyFile]) {
    const stillOurs = readJson(file, z.object({ id: z.string() }))?.id === request.id;
    if (stillOurs) fs.rmSync(file, { force: true });
  }
  return answered;
}

/**
 * The owner hands over to the window that asked: written before it lets go of the lock, so that
 * every other read-only window (a lost tab's host, one that handed over earlier) leaves the lock to
 * that one instead of racing it.
 */
export function grantHandover(foremanDir: string, to: Pick<HandoverRequest, 'pid' | 'host'>): void {
  writeFileAtomic(path.join(foremanDir, grantName), JSON.stringify({ pid: to.pid, host: to.host, until: Date.now() + grantMs }));
}

/** Until when this window leaves the lock to another window a handover was granted to (0: it need not). */
export function grantedElsewhereUntil(foremanDir: string): number {
  const grant = readJson(path.join(foremanDir, grantName), grantSchema);
  if (!grant || (grant.pid === process.pid && grant.host === os.hostname())) return 0;
  return grant.until;
}

/**
 * The owner's side: answers each fresh request in `foremanDir` with `decide`, and calls `handOver`
 * after granting (the owner then releases the lock). Each request is answered once.
 */
export class HandoverListener {
  private readonly watcher: fs.FSWatcher | undefined;
  private readonly answered = new Set<string>();

  constructor(
    private readonly foremanDir: string,
    private readonly decide: (request: HandoverRequest) => Promise<HandoverDecision>,
    private readonly handOver: (request: HandoverRequest) => void,
    private readonly log: (line: string) => void,
  ) {
    try {
      this.watcher = fs.watch(foremanDir, (_event, file) => {
        if (file?.toString() === requestName) this.check().catch((error: unknown) => this.log(`handover request: ${String(error)}`));
      });
    } catch {
      this.watcher = undefined;
    }
  }

  private async check(): Promise<void> {
    const request = readJson(path.join(this.foremanDir, requestName), requestSchema);
    if (!request || this.answered.has(request.id) || Date.now() - request.at > requestLifetimeMs) return;
    this.answered.add(request.id);
    const decision = await this.decide(request);
    this.log(`pid ${request.pid} asked to take over: ${decision.granted ? 'handing over' : 'refused'} (${decision.reason})`);
    writeFileAtomic(path.join(this.foremanDir, replyName), JSON.stringify({ id: request.id, ...decision }));
    if (decision.granted) this.handOver(request);
  }

  dispose(): void {
    this.watcher?.close();
  }
}
