/**
 * Whether an agent profile can run on this machine: its command found on PATH (with the profile's
 * own env over this process's). The Add Worker picker and `foreman worker add` tell the truth with
 * it before a worker fails its first attempt with "command not found".
 */
import { findCommand } from './agentEnvironment';
import { resolveProfile } from './profiles';

export type ProfileAvailability =
  | { readonly name: string; readonly status: 'found'; readonly command: string; readonly path: string }
  | { readonly name: string; readonly status: 'notFound'; readonly command: string }
  /** Unknown (`unknownAgentProfile`) or invalid profile: `message` says which. */
  | { readonly name: string; readonly status: 'invalid'; readonly code: string; readonly message: string };

export function profileAvailability(
  name: string,
  userProfiles: Readonly<Record<string, unknown>>,
  cwd: string,
  environment: Readonly<Record<string, string | undefined>> = process.env,
): ProfileAvailability {
  const profile = resolveProfile(name, userProfiles);
  if (!profile.ok) return { name, status: 'invalid', code: profile.code, message: profile.message };
  const lookup: Record<string, string> = {};
  for (const [key, value] of Object.entries(environment)) if (value !== undefined) lookup[key] = value;
  Object.assign(lookup, profile.value.env);
  const found = findCommand(profile.value.command, lookup, cwd);
  return found
    ? { name, status: 'found', command: profile.value.command, path: found }
    : { name, status: 'notFound', command: profile.value.command };
}
