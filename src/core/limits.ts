/**
 * Limits known on both sides of the endpoint. The engine's settings take their defaults from here,
 * and the CLI checks a payload before it builds a request (so the answer is the same with or
 * without an owner); no zod here, so the thin CLI can load it.
 */

/** The largest message payload accepted at all, by default. */
export const defaultMaxPayloadBytes = 1024 * 1024;
