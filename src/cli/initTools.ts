/**
 * The tools Claude Code lists in its `system/init` event, read by the hook from the attempt's
 * stream file (the gate's `streamFile`). Claude writes that line before any tool call, so the list
 * is there when a PreToolUse hook runs; with it, every tool this CLI has that only reads or plans
 * runs without asking, and no hand list of tool names drifts from the CLI (issue 27).
 */
import { closeSync, openSync, readSync } from 'node:fs';
import { initToolsOf } from '../core/claudePermissions';

/** Enough for the init line (a few KB with many MCP tools) and whatever precedes it. */
const headBytes = 256 * 1024;

/** Undefined when there is no file, or no init line in its head (then only rules allow). */
export function readInitTools(streamFile: string | undefined): string[] | undefined {
  if (streamFile === undefined) return undefined;
  let descriptor: number | undefined;
  try {
    descriptor = openSync(streamFile, 'r');
    const buffer = Buffer.alloc(headBytes);
    const length = readSync(descriptor, buffer, 0, headBytes, 0);
    return initToolsOf(buffer.subarray(0, length).toString('utf8'));
  } catch {
    return undefined;
  } finally {
    if (descriptor !== undefined) closeSync(descriptor);
  }
}
