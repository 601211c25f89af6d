/** A minimal event emitter with the shape of `vscode.Event`, so the UI can subscribe directly. */
export interface Disposable {
  dispose(): void;
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

/** Owns disposables and disposes them in reverse order (STYLE rule 5). */
export class DisposableStore implements Disposable {
  private readonly items: Disposable[] = [];

  add<T extends Disposable>(item: T): T {
    this.items.push(item);
    return item;
  }

  dispose(): void {
    while (this.items.length) this.items.pop()?.dispose();
  }
}
