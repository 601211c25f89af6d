/**
 * *Foreman: Install CLI on PATH*, without VS Code: a symbolic link `foreman` in a user bin folder
 * pointing at the installed extension's `bin/foreman`, as VS Code's own "Install 'code' command in
 * PATH" does. A `foreman` that is not a link into a Foreman extension is someone else's: refused.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { type Result, invalid, ok, refused } from '../../core/result';

export interface CliLinked {
  readonly link: string;
  readonly target: string;
  /** Whether `link`'s folder is on this process's PATH (a terminal opened later finds it). */
  readonly onPath: boolean;
  /** An older Foreman's link was replaced. */
  readonly replaced: boolean;
}

/** Where the link goes: `~/.local/bin`, the folder XDG and most shells' profiles put on PATH. */
export function userBinFolder(home = os.homedir()): string {
  return path.join(home, '.local', 'bin');
}

/** Links `<binFolder>/foreman` to `cli` (the extension's `bin/foreman`). */
export function installCliLink(cli: string, binFolder: string, pathVariable = process.env['PATH'] ?? ''): Result<CliLinked> {
  if (process.platform === 'win32') {
    return invalid(
      'unsupported',
      'Install CLI on PATH links a command into ~/.local/bin, which Windows does not have; use the terminals VS Code opens, where `foreman` is on PATH already.',
    );
  }
  if (!fs.existsSync(cli)) return invalid('noCli', `The extension has no CLI at ${cli}; reinstall Foreman.`);
  const link = path.join(binFolder, 'foreman');
  const existing = linkTarget(link);
  if (existing.kind === 'notALink') {
    return refused(
      'foreignCommand',
      `${link} already exists and is not Foreman's link; remove it first if you want this one, or keep using it.`,
    );
  }
  if (existing.kind === 'link' && !isForemanCli(existing.target)) {
    return refused(
      'foreignCommand',
      `${link} links to ${existing.target}, which is not a Foreman extension's CLI; remove it first if you want this one.`,
    );
  }
  fs.mkdirSync(binFolder, { recursive: true });
  // A new link beside the old one, renamed over it: there is never a moment without a `foreman`.
  const temp = `${link}.${process.pid}.tmp`;
  fs.rmSync(temp, { force: true });
  fs.symlinkSync(cli, temp);
  fs.renameSync(temp, link);
  const onPath = pathVariable.split(path.delimiter).some((entry) => entry && path.resolve(entry) === path.resolve(binFolder));
  return ok({ link, target: cli, onPath, replaced: existing.kind === 'link' && existing.target !== cli });
}

/** What is at `link`: nothing, something that is not a link (a file or folder), or a link and its target. */
type AtLink = { readonly kind: 'nothing' } | { readonly kind: 'notALink' } | { readonly kind: 'link'; readonly target: string };

function linkTarget(link: string): AtLink {
  try {
    return { kind: 'link', target: fs.readlinkSync(link) };
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return { kind: 'nothing' };
    if (code === 'EINVAL') return { kind: 'notALink' };
    throw error;
  }
}

/** An installed Foreman's CLI: `…/<publisher>.foreman-<version>/bin/foreman`, or a checkout's `bin/foreman`. */
function isForemanCli(target: string): boolean {
  if (path.basename(target) !== 'foreman' || path.basename(path.dirname(target)) !== 'bin') return false;
  const manifest = path.join(path.dirname(path.dirname(target)), 'package.json');
  try {
    return (JSON.parse(fs.readFileSync(manifest, 'utf8')) as { name?: unknown }).name === 'foreman';
  } catch {
    // The old extension folder is gone (VS Code removed an outdated version): its link is dangling.
    return /[\\/][\w-]+\.foreman-[^\\/]+[\\/]bin[\\/]foreman$/.test(target);
  }
}
