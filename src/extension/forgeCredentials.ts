/**
 * The GitHub token of a `pull-request` workspace in VS Code (docs/handoff.md): VS Code's built-in
 * GitHub sign-in, with the `repo` scope. Read quietly (the forge is read back on a timer); when
 * there is no session, the person is asked to sign in once per window, and after that the CLI's
 * sources (GITHUB_TOKEN, GH_TOKEN, `gh auth token`) are tried. The token stays in memory.
 */
import * as vscode from 'vscode';
import { ok, refused } from '../core/result';
import type { TokenSource } from '../host/infraParts';

const scopes = ['repo'];

export function githubTokenSource(): TokenSource {
  let asked = false;
  return async () => {
    try {
      let session = await vscode.authentication.getSession('github', scopes, { silent: true });
      if (!session && !asked) {
        asked = true;
        session = await vscode.authentication.getSession('github', scopes, { createIfNone: true });
      }
      return session ? ok(session.accessToken) : refused('forgeNoToken', 'Not signed in to GitHub in VS Code.');
    } catch (error) {
      // Declined, or no GitHub provider (a remote without it): the environment's sources come next.
      return refused('forgeNoToken', `No GitHub sign-in in VS Code: ${error instanceof Error ? error.message : String(error)}`);
    }
  };
}
