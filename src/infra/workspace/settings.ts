import * as fs from 'node:fs';
import * as path from 'node:path';
import { describeIssues } from '../../core/zodIssues';
import { type Result, invalid, ok } from '../../core/result';
import {
  type CrewSettingsFile,
  type EngineSettings,
  type SettingsFile,
  crewSettingsOf,
  mergeSettings,
  settingsFileSchema,
} from '../../engine/settings';

export const settingsFileName = 'settings.json';

/**
 * The engine settings of a workspace: the defaults, overridden by the optional
 * `.foreman/settings.json`. A bad file is refused with the field and the rule, never half-applied.
 */
export function loadSettings(foremanDir: string): Result<EngineSettings> {
  const file = readSettingsFile(foremanDir);
  return file.ok ? ok(mergeSettings(file.value)) : file;
}

/** Both halves of `.foreman/settings.json`: the engine's and the crew's. */
export function loadWorkspaceSettings(foremanDir: string): Result<{ engine: EngineSettings; crew: CrewSettingsFile }> {
  const file = readSettingsFile(foremanDir);
  return file.ok ? ok({ engine: mergeSettings(file.value), crew: crewSettingsOf(file.value) }) : file;
}

function readSettingsFile(foremanDir: string): Result<SettingsFile> {
  const file = path.join(foremanDir, settingsFileName);
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return ok({});
    throw error;
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    return invalid('badSettings', `${file} is not valid JSON: ${(error as Error).message}`, { file });
  }
  const parsed = settingsFileSchema.safeParse(json);
  if (!parsed.success) {
    const issues = describeIssues(parsed.error, 'settings', Object.keys(settingsFileSchema.shape));
    return invalid('badSettings', `${file}: ${issues}`, { file });
  }
  return ok(parsed.data);
}
