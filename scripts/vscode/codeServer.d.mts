// Types for codeServer.mjs, so TypeScript tests can use it under `strict`.
export interface CodeServerOptions {
  userDataDir: string;
  extensionsDir: string;
  runDir?: string;
  port?: number;
  folder?: string;
  workspaceTrust?: boolean;
  colorTheme?: string;
  settings?: Record<string, unknown>;
  /** Keep what settings.json already holds (a persistent profile); our defaults go underneath. */
  keepUserSettings?: boolean;
  extraArgs?: string[];
  env?: Record<string, string>;
  verbose?: boolean;
  timeoutMs?: number;
}
export interface CodeServer {
  /** The base URL, plus `?folder=` when a folder was given. */
  url: string;
  baseUrl: string;
  port: number;
  pid: number;
  runDir: string;
  startedInMs: number;
  stop(): Promise<void>;
  exited: Promise<number | string>;
}
export function startCodeServer(options: CodeServerOptions): Promise<CodeServer>;
export function quietSettings(options?: { colorTheme?: string; workspaceTrust?: boolean }): Record<string, unknown>;
export function freePort(): Promise<number>;
