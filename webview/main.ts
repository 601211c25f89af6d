import {
  provideVSCodeDesignSystem,
  vsCodeButton,
  vsCodeDropdown,
  vsCodeOption,
  vsCodeTextArea,
  vsCodeTextField,
} from '@vscode/webview-ui-toolkit';
import {
  type HandlerMap,
  type HostMessage,
  type ViewState,
  type WebviewMessage,
  defaultViewState,
  dispatchMessage,
  hostMessageSchema,
  protocolVersion,
  viewStateSchema,
} from '../src/shared/protocol';
import { App } from './app';
import { vscodeApi } from './vscodeApi';

/**
 * The dashboard's entry: registers the toolkit components, restores the saved view state, parses
 * every message from the host (dropping what does not parse, and saying so to the host's log),
 * and announces `ready`.
 */
provideVSCodeDesignSystem().register(vsCodeButton(), vsCodeDropdown(), vsCodeOption(), vsCodeTextArea(), vsCodeTextField());

const api = vscodeApi();
const saved = viewStateSchema.safeParse((api.getState() as { view?: unknown } | undefined)?.view);
const initialView: ViewState = saved.success ? saved.data : defaultViewState;
const post = (message: WebviewMessage) => api.postMessage(message);

const root = document.getElementById('app');
if (!root) throw new Error('the dashboard page has no #app element');
const app = new App(root, { post, saveView: (view) => api.setState({ view }) }, initialView);
const handlers: HandlerMap<HostMessage> = app.handlers;

window.addEventListener('message', (event: MessageEvent<unknown>) => {
  const outcome = dispatchMessage(hostMessageSchema, handlers, event.data);
  if (!outcome.ok) post({ type: 'error', message: `dropped an invalid message from the host (${outcome.problem})`.slice(0, 2000) });
});
window.addEventListener('error', (event) =>
  post({ type: 'error', message: `${event.message} at ${event.filename}:${event.lineno}`.slice(0, 2000) }),
);
window.addEventListener('unhandledrejection', (event) =>
  post({ type: 'error', message: `unhandled rejection: ${String(event.reason)}`.slice(0, 2000) }),
);

post({ type: 'ready', protocol: protocolVersion, view: initialView });
