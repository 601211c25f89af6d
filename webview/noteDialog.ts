import { custom, el } from './dom';

/**
 * The reviewer's note for "request changes", in a modal dialog outside the re-rendered sections,
 * so a snapshot arriving while someone types never throws the text away.
 */
export class NoteDialog {
  private readonly dialog: HTMLDialogElement;
  private readonly heading: HTMLElement;
  private readonly field: HTMLElement & { value: string };
  private readonly problem: HTMLElement;
  private workerId: string | null = null;

  constructor(
    parent: HTMLElement,
    private readonly submit: (workerId: string, note: string) => void,
  ) {
    this.heading = el('h2', {});
    this.field = custom('vscode-text-area', {
      attrs: {
        rows: 6,
        resize: 'vertical',
        placeholder: 'What should change? The agent gets this note with its prompt.',
        'aria-label': 'Note for the agent',
      },
    }) as HTMLElement & { value: string };
    this.problem = el('p', { class: 'error-text', attrs: { role: 'alert' } });
    const send = custom('vscode-button', { attrs: { appearance: 'primary' }, on: { click: () => this.send() } }, 'Send back');
    const cancel = custom('vscode-button', { attrs: { appearance: 'secondary' }, on: { click: () => this.close() } }, 'Cancel');
    this.dialog = el(
      'dialog',
      { class: 'note-dialog', attrs: { 'aria-label': 'Request changes' } },
      this.heading,
      this.field,
      this.problem,
      el('div', { class: 'actions' }, send, cancel),
    );
    this.dialog.addEventListener('keydown', (event) => {
      if (event.key === 'Enter' && (event.ctrlKey || event.metaKey)) this.send();
    });
    parent.append(this.dialog);
  }

  open(workerId: string, title: string): void {
    this.workerId = workerId;
    this.heading.textContent = `Request changes: ${title}`;
    this.field.value = '';
    this.problem.textContent = '';
    this.dialog.showModal();
    this.field.focus();
  }

  private send(): void {
    const note = this.field.value.trim();
    if (!note) {
      this.problem.textContent = 'Write what should change.';
      return;
    }
    if (note.length > 10_000) {
      this.problem.textContent = 'A note is at most 10,000 characters.';
      return;
    }
    if (this.workerId) this.submit(this.workerId, note);
    this.close();
  }

  private close(): void {
    this.workerId = null;
    this.dialog.close();
  }
}
