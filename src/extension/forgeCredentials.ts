/**
 * The forge tokens of a `pull-request` workspace in VS Code (docs/handoff.md). GitHub: VS Code's
 * built-in GitHub sign-in, with the `repo` scope, read quietly (the forge is read back on a timer);
 * when there is no session the person is asked to sign in once per window. GitLab: a token the
 * person gives once with *Foreman: Set GitLab Token*, kept in VS Code's SecretStorage (the OS
 * keychain). After these, the CLI's sources (GITHUB_TOKEN…, GITLAB_TOKEN…) are tried. A token
 * stays in memory and the secret store: never in `.foreman/`, a setting or a log.
 */
import * as vscode from 'vscode';
import { ok, refused } from '../core/result';
import type { TokenSource } from '../host/infraParts';
import { CommandId } from './commands/commandIds';

const scopes = ['repo'];
/** The SecretStorage key of the GitLab token (one per VS Code profile, for every GitLab server). */
const gitLabTokenKey = 'foreman.gitlabToken';

/** The token source of a window: by the forge asking, GitHub's sign-in or the stored GitLab token. */
export function forgeTokenSource(secrets: vscode.SecretStorage): TokenSource {
  const github = githubTokenSource();
  return async (request) => {
    if (request.forge === 'github') return github(request);
    const token = await secrets.get(gitLabTokenKey);
    return token ? ok(token) : refused('forgeNoToken', vscode.l10n.t('No GitLab token in VS Code: run Foreman: Set GitLab Token.'));
  };
}

function githubTokenSource(): TokenSource {
  let asked = false;
  return async () => {
    try {
      let session = await vscode.authentication.getSession('github', scopes, { silent: true });
      if (!session && !asked) {
        asked = true;
        session = await vscode.authentication.getSession('github', scopes, { createIfNone: true });
      }
      return session ? ok(session.accessToken) : refused('forgeNoToken', vscode.l10n.t('Not signed in to GitHub in VS Code.'));
    } catch (error) {
      // Declined, or no GitHub provider (a remote without it): the environment's sources come next.
      const why = error instanceof Error ? error.message : String(error);
      return refused('forgeNoToken', vscode.l10n.t('No GitHub sign-in in VS Code: {0}', why));
    }
  };
}

/** *Foreman: Set GitLab Token*: a password box; an empty answer removes the stored token. */
export function registerSetGitLabToken(secrets: vscode.SecretStorage): vscode.Disposable {
  return vscode.commands.registerCommand(CommandId.setGitLabToken, async () => {
    const token = await vscode.window.showInputBox({
      title: vscode.l10n.t('Foreman: GitLab token'),
      prompt: vscode.l10n.t(
        'A GitLab personal access token with the `api` scope, for merge requests. It is kept in VS Code’s secret storage. Leave empty to remove the stored one.',
      ),
      password: true,
      ignoreFocusOut: true,
      validateInput: (value) => (/\s/.test(value.trim()) ? vscode.l10n.t('A token has no spaces; paste the token itself.') : undefined),
    });
    if (token === undefined) return;
    if (token.trim() === '') {
      await secrets.delete(gitLabTokenKey);
      void vscode.window.showInformationMessage(vscode.l10n.t('Foreman: the GitLab token is removed.'));
      return;
    }
    await secrets.store(gitLabTokenKey, token.trim());
    void vscode.window.showInformationMessage(
      vscode.l10n.t('Foreman: the GitLab token is stored; merge requests use it from the next approval.'),
    );
  });
}
