/** The handle VS Code gives a webview page: the only way out of the sandbox. */
export interface VsCodeApi {
  postMessage(message: unknown): void;
  getState(): unknown;
  setState(state: unknown): void;
}

declare function acquireVsCodeApi(): VsCodeApi;

/** May be called once per page load. */
export function vscodeApi(): VsCodeApi {
  return acquireVsCodeApi();
}
