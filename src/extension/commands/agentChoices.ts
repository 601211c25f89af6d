import type { ProfileAvailability } from '../../host/infraParts';
import type { Localizer } from '../localizer';

/** One row of the Add Worker agent picker. */
export interface AgentChoice {
  readonly label: string;
  readonly description: string;
  readonly detail?: string;
  readonly profile: string;
  /** False when the command was not found or the profile is invalid: its tasks would fail at launch. */
  readonly runnable: boolean;
}

/**
 * The picker tells the truth: profiles whose command is on PATH come first (a quick pick makes
 * its first row the default, so a profile that cannot start is never the one Enter takes), the
 * rest say why they would fail. The order among each group is kept.
 */
export function agentChoices(profiles: readonly ProfileAvailability[], l10n: Localizer): AgentChoice[] {
  const rows = profiles.map((profile): AgentChoice => {
    switch (profile.status) {
      case 'found':
        // Nothing to add: the row is the profile's bare name (UI tests pick it by that).
        return { label: profile.name, description: '', profile: profile.name, runnable: true };
      case 'notFound':
        return {
          label: profile.name,
          description: l10n.t('— not found on PATH'),
          detail: l10n.t("'{0}' is not installed here (or not on PATH); this worker's tasks would fail when they start.", profile.command),
          profile: profile.name,
          runnable: false,
        };
      case 'invalid':
        return {
          label: profile.name,
          description: l10n.t('— invalid profile'),
          detail: profile.message,
          profile: profile.name,
          runnable: false,
        };
    }
  });
  return [...rows.filter((row) => row.runnable), ...rows.filter((row) => !row.runnable)];
}
