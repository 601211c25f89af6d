/**
 * A scripted stand-in for the model behind the real agent CLIs: one HTTP server on 127.0.0.1 that
 * speaks the Anthropic Messages API (Claude Code) and the OpenAI Responses API (Codex), both
 * streamed as Server-Sent Events, and answers each main-loop request with the next step of a
 * script. Everything else — the CLI, its tools, permissions, hooks, sessions — is the real program.
 *
 * One script queue per server: `play()` replaces it, each main-loop request takes one step, and a
 * request that finds the queue empty ends the turn with a fixed text. A request is main-loop when
 * it offers the agent's shell tool (`Bash` for Claude, `exec` for Codex); titles, summaries and
 * quota checks do not, get a short text and leave the script alone. Run one agent per server when
 * a test needs the steps to land in a known conversation.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { anthropicMessage, anthropicStream, type AnthropicBlock } from './scriptedModelAnthropic';
import { openAiItems, openAiResponse, openAiStream } from './scriptedModelOpenAi';

/** One answer of the model. */
export type ScriptStep =
  /** Run a shell command: Claude's `Bash` tool, Codex's `exec` calling `tools.exec_command`. */
  | { readonly bash: string; readonly usage?: StepUsage }
  /** Write a file: Claude's `Write` tool; Codex has none, so it becomes a shell heredoc. */
  | { readonly write: { readonly path: string; readonly content: string }; readonly usage?: StepUsage }
  /** End the turn with this text (the CLI's final result). */
  | { readonly text: string; readonly usage?: StepUsage }
  /** Claude only: call one of its tools by name (TaskCreate, Edit…) with this input. */
  | { readonly tool: { readonly name: string; readonly input: Readonly<Record<string, unknown>> }; readonly usage?: StepUsage }
  /**
   * Answer this one request with an HTTP error, as the service would (401, 429, 500…); the CLI
   * retries by itself as it does for the real service. `retryAfterSeconds` sends `retry-after`
   * (how the service keeps retries short, and how tests do); `headers` adds others.
   */
  | { readonly fail: number; readonly retryAfterSeconds?: number; readonly headers?: Readonly<Record<string, string>> }
  /** Never answer this request: the connection stays open and silent (a hung model). */
  | { readonly hang: true };

/** Token counts reported for one answer; by default derived from the sizes of request and answer. */
export interface StepUsage {
  readonly input: number;
  readonly output: number;
  /** OpenAI only: of `input`, tokens read from / written to the prompt cache (`input_tokens_details`). */
  readonly cached?: number;
  readonly cacheWrite?: number;
}

/** Which API a request came in on. */
export type ModelApi = 'anthropic' | 'openai';

/** One request the server received, in arrival order. */
export interface RecordedRequest {
  readonly api: ModelApi | 'other';
  readonly method: string;
  /** Path with query, e.g. `/v1/messages?beta=true`. */
  readonly path: string;
  /** The parsed JSON body; undefined when there was none or it was not JSON. */
  readonly body: unknown;
  /** Whether it offered the shell tool and so took (or would have taken) a script step. */
  readonly mainLoop: boolean;
  /** The step that answered it, if any. */
  readonly step: ScriptStep | undefined;
}

export interface ScriptedModel {
  /** `http://127.0.0.1:<port>`, without a trailing slash and without `/v1`. */
  readonly url: string;
  readonly port: number;
  /** Every request so far, in order (a live array). */
  readonly requests: readonly RecordedRequest[];
  /** Replaces the script; steps are consumed by main-loop requests in order. */
  play(script: readonly ScriptStep[]): void;
  /** Steps not yet consumed. */
  remaining(): number;
  /**
   * Answers every model request with this HTTP error (401: bad credentials, 429, 500, …) until
   * called again with undefined. Requests are still recorded.
   */
  /**
   * Answer every request with this HTTP error from now on (undefined: stop). `retryAfterSeconds`
   * sends `retry-after`, as the service does, so the CLI's own retries stay short.
   */
  failWith(status: number | undefined, retryAfterSeconds?: number): void;
  close(): Promise<void>;
}

/** The text that ends a turn when the script has run out. */
export const scriptFinishedText = 'Script finished.';
/** What requests outside the main loop (titles, summaries, quota probes) are told. */
export const sideRequestText = 'Scripted task';

export async function startScriptedModel(): Promise<ScriptedModel> {
  const requests: RecordedRequest[] = [];
  let script: ScriptStep[] = [];
  let failure: number | undefined;
  let failureHeaders: Record<string, string> = {};
  let callCounter = 0;
  /** Requests a `hang` step holds open; ended when the server closes. */
  const hanging = new Set<ServerResponse>();
  const nextId = (prefix: string): string => `${prefix}_${String(++callCounter).padStart(6, '0')}`;

  async function handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const path = request.url ?? '/';
    const method = request.method ?? 'GET';
    const raw = await readBody(request);
    const body = parseJson(raw);
    const api: RecordedRequest['api'] = path.startsWith('/v1/messages')
      ? 'anthropic'
      : path.startsWith('/v1/responses')
        ? 'openai'
        : 'other';
    const mainLoop = api !== 'other' && !path.includes('count_tokens') && offersShellTool(api, body);
    const step = mainLoop && failure === undefined ? script.shift() : undefined;
    requests.push({ api, method, path, body, mainLoop, step });

    if (api === 'other') {
      // Claude probes `HEAD /` for reachability before its first request.
      response.writeHead(method === 'HEAD' || path === '/' ? 200 : 404, { 'content-type': 'application/json' });
      response.end(method === 'HEAD' ? undefined : '{}');
      return;
    }
    if (failure !== undefined) {
      sendError(response, api, failure, failureHeaders);
      return;
    }
    if (step && 'hang' in step) {
      hanging.add(response);
      return;
    }
    if (step && 'fail' in step) {
      const headers = {
        ...(step.retryAfterSeconds !== undefined ? { 'retry-after': String(step.retryAfterSeconds) } : {}),
        ...step.headers,
      };
      sendError(response, api, step.fail, headers);
      return;
    }
    if (path.includes('count_tokens')) {
      sendJson(response, { input_tokens: estimateTokens(raw) });
      return;
    }
    const answer = step && !('fail' in step) && !('hang' in step) ? step : { text: mainLoop ? scriptFinishedText : sideRequestText };
    const inputTokens = answer.usage?.input ?? estimateTokens(raw);
    const streamed = isRecord(body) && body['stream'] === true;
    const model = isRecord(body) && typeof body['model'] === 'string' ? body['model'] : 'scripted-model';
    if (api === 'anthropic') {
      const blocks = anthropicBlocks(answer, nextId('toolu'));
      const outputTokens = answer.usage?.output ?? outputEstimate(blocks);
      const message = { id: nextId('msg'), model, blocks, inputTokens, outputTokens };
      if (streamed) sendEvents(response, anthropicStream(message));
      else sendJson(response, anthropicMessage(message));
      return;
    }
    const items = openAiItems(answer, nextId('call'), nextId('msg'));
    const outputTokens = answer.usage?.output ?? outputEstimate(items);
    const cache = { cachedTokens: answer.usage?.cached ?? 0, cacheWriteTokens: answer.usage?.cacheWrite ?? 0 };
    const result = { id: nextId('resp'), model, items, inputTokens, outputTokens, ...cache };
    if (streamed) sendEvents(response, openAiStream(result));
    else sendJson(response, openAiResponse(result, 'completed'));
  }

  const server = createServer((request, response) => {
    handle(request, response).catch((error: unknown) => {
      response.writeHead(500, { 'content-type': 'text/plain' });
      response.end(`scripted model: ${String(error)}`);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    requests,
    play: (steps) => {
      script = [...steps];
    },
    remaining: () => script.length,
    failWith: (status, retryAfterSeconds) => {
      failure = status;
      failureHeaders = retryAfterSeconds === undefined ? {} : { 'retry-after': String(retryAfterSeconds) };
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const response of hanging) response.destroy();
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/**
 * Claude's main loop offers `Bash` in `tools`; Codex's offers the custom tool `exec`, nested in a
 * `functions` namespace of an `additional_tools` input item.
 */
function offersShellTool(api: ModelApi, body: unknown): boolean {
  if (!isRecord(body)) return false;
  if (api === 'anthropic') return toolNames(body['tools']).includes('Bash');
  const input = Array.isArray(body['input']) ? (body['input'] as unknown[]) : [];
  const offered = input.flatMap((item) => (isRecord(item) && item['type'] === 'additional_tools' ? toolNames(item['tools']) : []));
  return [...offered, ...toolNames(body['tools'])].includes('exec');
}

/** Names of the tools in a list, looking inside namespaces. */
function toolNames(tools: unknown): string[] {
  if (!Array.isArray(tools)) return [];
  return tools.flatMap((tool: unknown): string[] => {
    if (!isRecord(tool)) return [];
    if (tool['type'] === 'namespace') return toolNames(tool['tools']);
    return typeof tool['name'] === 'string' ? [tool['name']] : [];
  });
}

/** A step that answers (not a failure, not a hang). */
export type AnswerStep = Extract<ScriptStep, { bash: string } | { write: unknown } | { text: string } | { tool: unknown }>;

function anthropicBlocks(step: AnswerStep, toolId: string): AnthropicBlock[] {
  if ('bash' in step) return [{ type: 'tool_use', id: toolId, name: 'Bash', input: { command: step.bash, description: 'Run a command' } }];
  if ('tool' in step) return [{ type: 'tool_use', id: toolId, name: step.tool.name, input: step.tool.input }];
  if ('write' in step)
    return [{ type: 'tool_use', id: toolId, name: 'Write', input: { file_path: step.write.path, content: step.write.content } }];
  return [{ type: 'text', text: step.text }];
}

/** Roughly four characters a token, as the real tokenizers average on English and code. */
function estimateTokens(text: string): number {
  return Math.max(1, Math.ceil(text.length / 4));
}

function outputEstimate(content: unknown): number {
  return 8 + estimateTokens(JSON.stringify(content));
}

function sendEvents(response: ServerResponse, events: readonly { event: string; data: unknown }[]): void {
  response.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', connection: 'keep-alive' });
  for (const { event, data } of events) response.write(`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`);
  response.end();
}

function sendJson(response: ServerResponse, value: unknown): void {
  response.writeHead(200, { 'content-type': 'application/json' });
  response.end(JSON.stringify(value));
}

/** Each API's own error shape, so the CLI reports it as it would the real service's. */
function sendError(response: ServerResponse, api: ModelApi, status: number, headers: Readonly<Record<string, string>> = {}): void {
  const message = status === 401 ? 'invalid x-api-key' : `scripted failure ${status}`;
  const body =
    api === 'anthropic'
      ? { type: 'error', error: { type: status === 401 ? 'authentication_error' : 'api_error', message } }
      : {
          error: {
            message: status === 401 ? 'Incorrect API key provided.' : message,
            type: status === 401 ? 'invalid_request_error' : 'server_error',
            code: status === 401 ? 'invalid_api_key' : null,
          },
        };
  response.writeHead(status, { 'content-type': 'application/json', ...headers });
  response.end(JSON.stringify(body));
}

function readBody(request: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    let text = '';
    request.setEncoding('utf8');
    request.on('data', (chunk: string) => (text += chunk));
    request.on('end', () => resolve(text));
    request.on('error', reject);
  });
}

function parseJson(text: string): unknown {
  if (text === '') return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
