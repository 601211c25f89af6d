/**
 * The few `vscode` classes the tree providers construct, for measuring them outside VS Code. The
 * real API is only reachable inside an extension host; these are plain data holders, so what is
 * measured is Foreman's own work (grouping, labels, descriptions), which is what the target is about.
 */
import Module from 'node:module';
import { english } from '../../src/extension/localizer';

class EventEmitter<T> {
  private listeners: Array<(e: T) => void> = [];
  event = (listener: (e: T) => void) => {
    this.listeners.push(listener);
    return { dispose: () => (this.listeners = this.listeners.filter((l) => l !== listener)) };
  };
  fire(event: T) {
    this.listeners.forEach((l) => l(event));
  }
  dispose() {
    this.listeners = [];
  }
}

class TreeItem {
  [key: string]: unknown;
  constructor(
    public label: string,
    public collapsibleState = 0,
  ) {}
}

class MarkdownString {
  value = '';
  supportThemeIcons = false;
  constructor(value = '') {
    this.value = value;
  }
  appendMarkdown(text: string) {
    this.value += text;
    return this;
  }
}

const shim = {
  EventEmitter,
  TreeItem,
  MarkdownString,
  ThemeIcon: class {
    constructor(
      public id: string,
      public color?: unknown,
    ) {}
  },
  ThemeColor: class {
    constructor(public id: string) {}
  },
  TreeItemCollapsibleState: { None: 0, Collapsed: 1, Expanded: 2 },
  // English, with the placeholders filled, as VS Code does when no translation bundle is loaded.
  l10n: english,
};

const original = (Module as unknown as { _load: (request: string, ...rest: unknown[]) => unknown })._load;
(Module as unknown as { _load: (request: string, ...rest: unknown[]) => unknown })._load = function (request: string, ...rest: unknown[]) {
  return request === 'vscode' ? shim : original.call(this, request, ...rest);
};
