import type { AgentConfinement } from '../core/agentConfinement';

/** How a run's confinement reads on a worker's card, in the tree and on the dashboard alike. */
export interface ConfinementWords {
  /** A word or two for a badge. */
  readonly label: string;
  /** The sentence behind it (a tooltip). */
  readonly detail: string;
  /** Unconfined by the profile's choice: shown as a warning badge, not as plain words. */
  readonly warning: boolean;
}

const words: Record<AgentConfinement, ConfinementWords> = {
  sandbox: {
    label: 'sandboxed',
    detail: "sandboxed: the agent's commands write only in its worktree, with no network unless the profile names hosts",
    warning: false,
  },
  allowList: {
    label: 'allow-list',
    detail: 'allow-list: the usual build and test commands run; anything else waits for you (no sandbox on this machine)',
    warning: false,
  },
  open: { label: 'unconfined', detail: 'unconfined: this agent may run any command', warning: true },
  none: { label: 'not confined', detail: 'not confined by Foreman: the profile runs its command as given', warning: false },
};

export function confinementWords(confinement: AgentConfinement): ConfinementWords {
  return words[confinement];
}
