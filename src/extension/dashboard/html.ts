import { randomBytes } from 'node:crypto';

export interface DashboardPage {
  /** `webview.cspSource`: the origin the webview serves local resources from. */
  readonly cspSource: string;
  readonly scriptUri: string;
  readonly styleUri: string;
  readonly nonce: string;
}

/** A fresh nonce per page load, from the platform's cryptographic generator. */
export function newNonce(): string {
  return randomBytes(18).toString('base64');
}

/**
 * The dashboard's page: nothing inline but the CSP itself. Scripts run only with this load's nonce,
 * styles come from the build output (or carry the nonce, which VS Code's own default styles read
 * from the `csp-nonce` meta), and images, fonts, frames and connections are refused.
 */
export function dashboardHtml(page: DashboardPage): string {
  const csp = [
    "default-src 'none'",
    `script-src 'nonce-${page.nonce}'`,
    `style-src ${page.cspSource} 'nonce-${page.nonce}'`,
    `font-src ${page.cspSource}`,
    "img-src 'none'",
    "base-uri 'none'",
    "form-action 'none'",
  ].join('; ');
  return `<!DOCTYPE html>
<html lang="en">
<head>
  <meta charset="UTF-8">
  <meta http-equiv="Content-Security-Policy" content="${attribute(csp)}">
  <meta property="csp-nonce" content="${attribute(page.nonce)}">
  <meta name="viewport" content="width=device-width, initial-scale=1.0">
  <link rel="stylesheet" href="${attribute(page.styleUri)}" nonce="${attribute(page.nonce)}">
  <title>Foreman Dashboard</title>
</head>
<body>
  <main id="app" aria-busy="true"><p class="loading">Loading the Foreman dashboard…</p></main>
  <script src="${attribute(page.scriptUri)}" nonce="${attribute(page.nonce)}"></script>
</body>
</html>`;
}

function attribute(value: string): string {
  return value.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}
