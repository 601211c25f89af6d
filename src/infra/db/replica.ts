/**
 * A copy of the store's database on a worker thread, so that a checkpoint's export does not stop the
 * owner (issue 13). sql.js can only copy its database synchronously: 70–90 ms at a 15 MiB image,
 * during which no request is answered. The replica (replicaWorker.ts) loads the files on disk, is
 * sent every committed journal record in order, and exports its own copy when asked; the owner's
 * thread only posts records (microseconds each) and receives the finished image.
 *
 * It is an optimisation, never a source of truth: the image it returns is written and checked like
 * any other, and if it fails in any way (a gap, a statement that fails, a thread that dies) the store
 * exports on its own thread as before and starts a fresh replica after its next checkpoint.
 */
import * as path from 'node:path';
import type { Worker } from 'node:worker_threads';
import { RunOnceScheduler } from '../../base/async';
import { startWorker } from '../threads/startWorker';
import type { CheckpointImage } from './checkpointer';
import type { ReplicaReply, ReplicaRequest, ReplicaStart } from './replicaProtocol';

/** The bundled worker beside the bundle that runs this (dist/); absent when running from sources. */
const bundledScript = path.join(__dirname, 'store-replica.js');

type State = 'loading' | 'ready' | 'failed';

/** How long committed records may wait before they are sent to the replica, and how many bytes of them. */
const sendEveryMs = 20;
const sendAtBytes = 1024 * 1024;

export class StoreReplica {
  private state: State = 'loading';
  private readonly worker: Worker;
  private nextId = 1;
  private readonly waiting = new Map<number, { resolve: (image: CheckpointImage) => void; reject: (error: Error) => void }>();
  private whyFailed = '';
  /**
   * Records committed since the last message, as the journal holds them. They go together in one
   * message of bytes every `sendEveryMs` (or sooner: `sendAtBytes`, an image asked for). A message
   * per commit cost a busy owner 7% of its thread, one per turn of its event loop still 3–4%: it is
   * the wake-up of the replica's thread that costs, not the bytes.
   */
  private pending: Buffer[] = [];
  private pendingBytes = 0;
  private readonly sending = new RunOnceScheduler(() => this.flush(), sendEveryMs);

  /**
   * Starts a replica of the store in `dir` as of `baseSeq`; records after it must be sent with
   * `send`. `script` is the bundled worker to run (tests name dist/'s from sources).
   */
  constructor(
    dir: string,
    baseSeq: number,
    private readonly log: (line: string) => void,
    script = bundledScript,
  ) {
    const start: ReplicaStart = { dir, baseSeq };
    this.worker = startWorker(script, path.join(__dirname, 'replicaWorker.ts'), { workerData: start });
    // The owner's process must be free to exit while the replica idles.
    this.worker.unref();
    this.worker.on('message', (reply: ReplicaReply) => this.receive(reply));
    this.worker.on('error', (error) => this.fail(`its thread threw: ${error.message}`));
    this.worker.on('exit', (code) => this.fail(`its thread exited (code ${code})`));
  }

  /** True once the replica holds every record sent so far and can be asked for an image. */
  get ready(): boolean {
    return this.state === 'ready';
  }

  get loading(): boolean {
    return this.state === 'loading';
  }

  get failed(): boolean {
    return this.state === 'failed';
  }

  /** Sends one committed record (`encodeRecord`'s bytes); in seq order, every one of them. */
  send(record: Buffer): void {
    if (this.state === 'failed') return;
    this.pending.push(record);
    this.pendingBytes += record.length;
    if (this.pendingBytes >= sendAtBytes) this.flush();
    else if (!this.sending.isScheduled) this.sending.schedule();
  }

  /** Posts the records not sent yet, in a buffer of their own that is handed over, not copied. */
  private flush(): void {
    this.sending.cancel();
    if (this.pending.length === 0 || this.state === 'failed') return;
    const bytes = new Uint8Array(this.pendingBytes);
    let offset = 0;
    for (const record of this.pending) {
      bytes.set(record, offset);
      offset += record.length;
    }
    this.pending = [];
    this.pendingBytes = 0;
    this.worker.postMessage({ kind: 'records', bytes } satisfies ReplicaRequest, [bytes.buffer]);
  }

  /** The image at `seq` (every record up to it sent), exported on the replica's thread. */
  image(seq: number): Promise<CheckpointImage> {
    if (this.state !== 'ready') return Promise.reject(new Error(`the replica is not ready (${this.whyFailed || this.state})`));
    const id = this.nextId++;
    return new Promise<CheckpointImage>((resolve, reject) => {
      this.waiting.set(id, { resolve, reject });
      this.flush();
      this.worker.postMessage({ kind: 'image', id, seq } satisfies ReplicaRequest);
    });
  }

  /** Stops the thread; pending images are refused. */
  dispose(): void {
    this.fail('the store closed it', false);
    void this.worker.terminate();
  }

  private receive(reply: ReplicaReply): void {
    if (this.state === 'failed') return;
    if (reply.kind === 'ready') this.state = 'ready';
    else if (reply.kind === 'failed') this.fail(reply.reason);
    else {
      const waiter = this.waiting.get(reply.id);
      this.waiting.delete(reply.id);
      waiter?.resolve({ bytes: reply.bytes, sha256: reply.sha256 });
    }
  }

  private fail(reason: string, logIt = true): void {
    if (this.state === 'failed') return;
    this.state = 'failed';
    this.whyFailed = reason;
    this.pending = [];
    this.pendingBytes = 0;
    this.sending.dispose();
    if (logIt) this.log(`The store's replica stopped (${reason}); checkpoints export on the owner's thread until a new one is ready.`);
    for (const waiter of this.waiting.values()) waiter.reject(new Error(`the replica stopped: ${reason}`));
    this.waiting.clear();
    void this.worker.terminate();
  }
}
