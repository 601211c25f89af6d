/**
 * The other owners' writes, as they commit (issue 14): one asynchronous `pg` connection that
 * `LISTEN`s on the channel every PgStore write that changed a worker or a task notifies (pgStore.ts),
 * turning each notification from another owner into `onChange` with what it changed and what this
 * owner must do about it (notice.ts; undefined: not known, read everything). This is what wakes an
 * owner's dispatcher, monitor and views when another machine queues a task or moves a worker, and
 * only then: heartbeats send none (issue 29).
 *
 * When the server goes away the connection is opened again with a growing pause (up to
 * `maxBackoffMs`); notifications sent meanwhile are lost, so a reconnect reports `onChange(undefined)`
 * once: whatever happened in between is read again.
 */
import type { Client } from 'pg';
import type { Disposable } from '../../base/lifetime';
import { type Clock, systemClock } from '../../engine/ports';
import { newPgClient } from './connect';
import type { PgTls } from './tls';
import { type ChangeNotice, decodeNotice, notifyChannel } from './notice';
import { describeServer } from './syncClient';

export { decodeNotice } from './notice';

export interface ListenerOptions {
  /** This owner's id: its own notifications are skipped (its engine already knows). */
  readonly self: string;
  /** Another owner's change; `changed` undefined: which rows is not known. */
  readonly onChange: (notice: ChangeNotice) => void;
  /** Connection lost or refused; the listener keeps trying. Messages name the server, never its password. */
  readonly log?: (message: string) => void;
  readonly connectTimeoutMs?: number;
  /** TLS from `.foreman/store.json`, as the store's own connection uses it. */
  readonly ssl?: PgTls;
  readonly minBackoffMs?: number;
  readonly maxBackoffMs?: number;
  /** The reconnect timer's clock; default the system's (whose timers keep no process alive). */
  readonly clock?: Clock;
}

export class PgListener {
  private client: Client | undefined;
  private closed = false;
  private attempt = 0;
  private retryTimer: Disposable | undefined;
  private readonly server: string;
  /** Resolves once the first `LISTEN` is in place (tests wait for it; owners need not). */
  readonly ready: Promise<void>;
  private markReady: () => void = () => undefined;

  constructor(
    private readonly url: string,
    private readonly options: ListenerOptions,
  ) {
    this.server = describeServer(url);
    this.ready = new Promise((resolve) => (this.markReady = resolve));
    void this.connect(false);
  }

  private async connect(reconnecting: boolean): Promise<void> {
    if (this.closed) return;
    const client = newPgClient(this.url, {
      connectTimeoutMs: this.options.connectTimeoutMs ?? 5_000,
      ...(this.options.ssl !== undefined ? { ssl: this.options.ssl } : {}),
    });
    // Both end the connection: one reconnect for whichever comes first.
    let lost = false;
    const onLost = (reason: string): void => {
      if (lost) return;
      lost = true;
      if (this.client === client) this.client = undefined;
      client.end().catch(() => undefined);
      if (!this.closed) {
        this.options.log?.(`lost the notifications of ${this.server} (${reason}); listening again soon`);
        this.scheduleReconnect();
      }
    };
    client.on('error', (error) => onLost(error.message));
    client.on('end', () => onLost('connection ended'));
    client.on('notification', (message) => {
      if (message.channel !== notifyChannel) return;
      const notice = decodeNotice(message.payload);
      if (notice.owner !== this.options.self) this.options.onChange(notice);
    });
    try {
      await client.connect();
      await client.query(`LISTEN ${notifyChannel}`);
    } catch (error) {
      onLost(error instanceof Error ? error.message : String(error));
      return;
    }
    if (this.closed || lost) {
      await client.end().catch(() => undefined);
      return;
    }
    this.client = client;
    this.attempt = 0;
    this.markReady();
    // Notifications while nobody listened are gone: read everything once.
    if (reconnecting) this.options.onChange({ owner: '' });
  }

  private scheduleReconnect(): void {
    if (this.closed || this.retryTimer) return;
    const min = this.options.minBackoffMs ?? 250;
    const max = this.options.maxBackoffMs ?? 10_000;
    const delay = Math.min(max, min * 2 ** this.attempt);
    this.attempt++;
    // A listener alone must not keep a process alive: the clock's timers do not.
    this.retryTimer = (this.options.clock ?? systemClock).setTimeout(() => {
      this.retryTimer = undefined;
      void this.connect(true);
    }, delay);
  }

  /** Stops listening and reconnecting. */
  async close(): Promise<void> {
    this.closed = true;
    this.retryTimer?.dispose();
    this.retryTimer = undefined;
    const client = this.client;
    this.client = undefined;
    await client?.end().catch(() => undefined);
  }
}
