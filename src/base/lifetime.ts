/** A minimal event emitter with the shape of `vscode.Event`, so the UI can subscribe directly. */
export interface Disposable {
  dispose(): void;
}

/** A disposable that runs `fn` on its first `dispose` only (a subscription ended twice ends once). */
export function toDisposable(fn: () => void): Disposable {
  let pending: (() => void) | undefined = fn;
  return {
    dispose: () => {
      const run = pending;
      pending = undefined;
      run?.();
    },
  };
}

export type Event<T> = (listener: (event: T) => void) => Disposable;

export class Emitter<T> implements Disposable {
  private listeners = new Set<(event: T) => void>();

  readonly event: Event<T> = (listener) => {
    this.listeners.add(listener);
    return { dispose: () => this.listeners.delete(listener) };
  };

  fire(event: T): void {
    for (const listener of [...this.listeners]) {
      try {
        listener(event);
      } catch (error) {
        // A listener's bug must not stop the others or the engine; it is reported, not swallowed.
        queueMicrotask(() => {
          throw error;
        });
      }
    }
  }

  dispose(): void {
    this.listeners.clear();
  }
}

/**
 * Owns disposables and disposes them in reverse order (STYLE rule 5). Like VS Code's, a store that
 * is already disposed takes nothing more: an item added late is disposed at once instead of
 * leaking (a subscription made by work that finished after its owner closed).
 */
export class DisposableStore implements Disposable {
  private readonly items: Disposable[] = [];
  private disposed = false;

  get isDisposed(): boolean {
    return this.disposed;
  }

  add<T extends Disposable>(item: T): T {
    if (this.disposed) {
      item.dispose();
      return item;
    }
    this.items.push(item);
    return item;
  }

  dispose(): void {
    this.disposed = true;
    while (this.items.length) this.items.pop()?.dispose();
  }
}

/** The base of a class that owns disposables: `_register` them, and `dispose` ends them all. */
export abstract class DisposableBase implements Disposable {
  private readonly _store = new DisposableStore();

  protected _register<T extends Disposable>(item: T): T {
    return this._store.add(item);
  }

  get isDisposed(): boolean {
    return this._store.isDisposed;
  }

  dispose(): void {
    this._store.dispose();
  }
}

/** Holds at most one disposable: setting another disposes the one before (a timer, a watcher). */
export class MutableDisposable<T extends Disposable> implements Disposable {
  private current: T | undefined;
  private disposed = false;

  get value(): T | undefined {
    return this.current;
  }

  set value(next: T | undefined) {
    if (next === this.current) return;
    this.current?.dispose();
    this.current = this.disposed ? undefined : next;
    if (this.disposed) next?.dispose();
  }

  clear(): void {
    this.value = undefined;
  }

  dispose(): void {
    this.disposed = true;
    this.current?.dispose();
    this.current = undefined;
  }
}
