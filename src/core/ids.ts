import { z } from 'zod';
import { idPattern } from './idPattern';

export { idPattern } from './idPattern';
export const idRule = 'lowercase letters, digits and dashes, starting with a letter or digit, at most 63 characters';

export const workerIdSchema = z.string().regex(idPattern, `a worker id is ${idRule}`);
export const taskIdSchema = z.string().regex(idPattern, `a task id is ${idRule}`);
/** Bus participants are workers, people and tools: the same rule keeps names printable and safe. */
export const agentIdSchema = z.string().regex(idPattern, `an agent id is ${idRule}`);

/** A machine that runs an owner (issue 14): named like ids, plus dots, so that `build-1.lan` is one. */
export const hostSchema = z
  .string()
  .regex(
    /^[a-z0-9][a-z0-9.-]{0,62}$/,
    'a host name is lowercase letters, digits, dots and dashes, starting with a letter or digit, at most 63 characters',
  );

/**
 * This machine's host name: `FOREMAN_HOST` as given (validated where it is used), else the system's
 * name made into a valid one (lowercase, other characters as '-'), e.g. `MacBook-Pro.local` → `macbook-pro.local`.
 */
export function thisHost(env: Readonly<Record<string, string | undefined>>, systemName: string): string {
  const chosen = env['FOREMAN_HOST']?.trim();
  if (chosen) return chosen;
  const name = systemName
    .toLowerCase()
    .replace(/[^a-z0-9.-]+/g, '-')
    .replace(/^[^a-z0-9]+/, '')
    .slice(0, 63);
  return name || 'localhost';
}

/** Titles are shown everywhere; they may hold any printable text but no control characters. */
export const titleSchema = z
  .string()
  .trim()
  .min(1, 'a title must not be empty')
  .max(200, 'a title is at most 200 characters')
  // eslint-disable-next-line no-control-regex -- refusing control characters is the point
  .refine((value) => !/[\u0000-\u001f\u007f]/.test(value), 'a title must not contain control characters');

/** Turns a free-form name into an id candidate ("Login page!" → "login-page"). */
export function slugify(name: string): string {
  return name
    .toLowerCase()
    .normalize('NFKD')
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 50)
    .replace(/-+$/, '');
}

/** A new task id from a random source; randomness is a parameter so replays stay deterministic. */
export function newTaskId(random: () => number = Math.random): string {
  const alphabet = 'abcdefghijkmnpqrstuvwxyz23456789';
  let id = 't-';
  for (let i = 0; i < 8; i++) id += alphabet[Math.floor(random() * alphabet.length)];
  return id;
}
