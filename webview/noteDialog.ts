import { custom, el } from './dom';

/** The words of one kind of note: "request changes" (the default) or "send message". */
export interface NoteWording {
  /** Heading before the subject, and the dialog's label. */
  readonly action: string;
  readonly placeholder: string;
  readonly field: string;
  readonly button: string;
  /** Said when the person sends nothing. */
  readonly empty: string;
}

const requestChangesWording: NoteWording = {
  action: 'Request changes',
  placeholder: 'What should change? The agent gets this note with its prompt.',
  field: 'Note for the agent',
  button: 'Send back',
  empty: 'Write what should change.',
};

/**
 * The reviewer's note for "request changes" (or a message for a working agent), in a modal dialog
 * outside the re-rendered sections, so a snapshot arriving while someone types never throws the text away.
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
    private readonly wording: NoteWording = requestChangesWording,
  ) {
    this.heading = el('h2', {});
    this.field = custom('vscode-text-area', {
      attrs: {
        rows: 6,
        resize: 'vertical',
        placeholder: wording.placeholder,
        'aria-label': wording.field,
      },
    }) as HTMLElement & { value: string };
    this.problem = el('p', { class: 'error-text', attrs: { role: 'alert' } });
    const send = custom('vscode-button', { attrs: { appearance: 'primary' }, on: { click: () => this.send() } }, wording.button);
    const cancel = custom('vscode-button', { attrs: { appearance: 'secondary' }, on: { click: () => this.close() } }, 'Cancel');
    this.dialog = el(
      'dialog',
      { class: 'note-dialog', attrs: { 'aria-label': wording.action } },
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
    this.heading.textContent = `${this.wording.action}: ${title}`;
    this.field.value = '';
    this.problem.textContent = '';
    this.dialog.showModal();
    this.field.focus();
  }

  private send(): void {
    const note = this.field.value.trim();
    if (!note) {
      this.problem.textContent = this.wording.empty;
      return;
    }
    if (note.length > 10_000) {
      this.problem.textContent = 'At most 10,000 characters.';
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
