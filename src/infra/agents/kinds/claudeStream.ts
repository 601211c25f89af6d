/**
 * Reads Claude Code's `--output-format stream-json` lines into Foreman's agent events (the facts
 * are in REAL-AGENTS-TESTING.md): its session, tool calls and their results, the model call's
 * retries and limits, a person's messages as it takes them in (`--replay-user-messages`), and the
 * run's end with its usage. Every line is checked with zod; a line it does not know says nothing.
 */
import { z } from 'zod';
import { type AgentEventInput, describeTool, editedFiles, toolDetail } from '../../../core/agentEvents';
import { type StreamParser, parseEventLine } from './adapter';

const contentSchema = z.array(
  z.union([
    z.object({ type: z.literal('text'), text: z.string() }),
    z.object({ type: z.literal('tool_use'), name: z.string(), input: z.record(z.string(), z.unknown()).default({}) }),
    z.object({
      type: z.literal('tool_result'),
      content: z.union([z.string(), z.array(z.object({ type: z.string(), text: z.string().optional() }))]).optional(),
      is_error: z.boolean().optional(),
    }),
    z.object({ type: z.string() }),
  ]),
);
const usageSchema = z.object({
  input_tokens: z.number().default(0),
  output_tokens: z.number().default(0),
  cache_creation_input_tokens: z.number().default(0),
  cache_read_input_tokens: z.number().default(0),
});
/** Claude's `rate_limit_info`: `status` "rejected" is a plan limit reached; `resetsAt` is epoch seconds. */
const rateLimitSchema = z.object({
  status: z.string().optional(),
  resetsAt: z.number().optional(),
  rateLimitType: z.string().optional(),
});
const lineSchema = z.discriminatedUnion('type', [
  z.object({
    type: z.literal('system'),
    subtype: z.string().optional(),
    session_id: z.string().optional(),
    // api_retry: Claude Code retries a failed model call by itself (REAL-AGENTS-TESTING.md).
    attempt: z.number().optional(),
    max_retries: z.number().optional(),
    retry_delay_ms: z.number().optional(),
    error_status: z.number().nullable().optional(),
    error: z.string().optional(),
  }),
  z.object({ type: z.literal('rate_limit_event'), rate_limit_info: rateLimitSchema }),
  z.object({ type: z.literal('assistant'), message: z.object({ content: contentSchema }), error: z.string().optional() }),
  z.object({
    type: z.literal('user'),
    message: z.object({ content: z.union([z.string(), contentSchema]) }),
    // `--replay-user-messages`: a message from stdin, echoed as the agent takes it in.
    isReplay: z.boolean().optional(),
  }),
  z.object({
    type: z.literal('result'),
    subtype: z.string().optional(),
    is_error: z.boolean().default(false),
    result: z.string().optional(),
    total_cost_usd: z.number().default(0),
    /** The HTTP status of the model call the run ended on (429: a limit). */
    api_error_status: z.number().nullable().optional(),
    usage: usageSchema.optional(),
    permission_denials: z.array(z.object({ tool_name: z.string(), tool_input: z.record(z.string(), z.unknown()).default({}) })).optional(),
  }),
]);

/** The part of a tool's input that says what it does (in core: the owner reads hook payloads with it too). */
export { toolDetail };

function resultText(content: z.infer<typeof contentSchema>[number]): string {
  if (!('content' in content) || content.content === undefined) return '';
  return typeof content.content === 'string' ? content.content : content.content.map((part) => part.text ?? '').join('\n');
}

type Line = z.infer<typeof lineSchema>;

/** Claude's words for why a call failed (its `error` field) in a person's words. */
const retryErrors: Readonly<Record<string, string>> = {
  rate_limit: 'rate limited',
  overloaded: 'overloaded',
  server_error: 'server error',
  authentication_failed: 'authentication failed',
};

/**
 * A retry of the model call; an authentication failure also ends the run's chances, so it comes
 * with a failed result at once (Claude would retry it ten times over minutes; no retry can fix a key).
 */
function retryEvents(line: Extract<Line, { type: 'system' }>): AgentEventInput[] {
  const words = retryErrors[line.error ?? ''] ?? line.error ?? 'the model call failed';
  const retry: AgentEventInput = {
    type: 'retry',
    message: words,
    ...(line.attempt !== undefined ? { attempt: line.attempt } : {}),
    ...(line.max_retries !== undefined ? { maxAttempts: line.max_retries } : {}),
    ...(typeof line.error_status === 'number' ? { status: line.error_status } : {}),
    ...(line.retry_delay_ms !== undefined ? { delayMs: Math.round(line.retry_delay_ms) } : {}),
  };
  if (line.error !== 'authentication_failed') return [retry];
  const status = typeof line.error_status === 'number' ? ` (HTTP ${line.error_status})` : '';
  return [retry, { type: 'result', summary: `authentication failed${status}`, isError: true, failure: 'authentication' }];
}

/** A plan limit reached ("rejected"); warnings and allowed calls say nothing. */
function limitEvent(info: z.infer<typeof rateLimitSchema>): AgentEventInput | undefined {
  if (info.status !== 'rejected') return undefined;
  const kind = info.rateLimitType ? ` (${info.rateLimitType.replace(/_/g, ' ')})` : '';
  const message = `usage limit reached${kind}`;
  return info.resetsAt ? { type: 'limit', message, resetsAt: Math.round(info.resetsAt * 1000) } : { type: 'limit', message };
}

/** What Claude writes into the session when a person interrupts its turn. */
const interruptedMarker = '[Request interrupted by user';

/** The text of a user message, whether a string or text blocks. */
function userText(content: string | z.infer<typeof contentSchema>): string {
  if (typeof content === 'string') return content;
  return content.map((part) => (part.type === 'text' && 'text' in part ? part.text : '')).join('\n');
}

/** The run's end, with what its subtype says it stopped on when a retry cannot help. */
function resultEvent(line: Extract<Line, { type: 'result' }>, interrupted: boolean): AgentEventInput {
  const summary = line.result ?? line.subtype ?? '';
  if (interrupted && line.subtype === 'error_during_execution') {
    return { type: 'result', summary: 'interrupted by a person', isError: true };
  }
  switch (line.subtype) {
    case 'error_max_budget_usd':
      return {
        type: 'result',
        summary: `stopped at its budget after spending $${line.total_cost_usd.toFixed(4).replace(/0{1,2}$/, '')}`,
        isError: true,
        failure: 'budget',
      };
    case 'error_max_turns':
      return { type: 'result', summary: 'stopped at its maximum number of turns', isError: true, failure: 'maxTurns' };
    default:
      return { type: 'result', summary, isError: line.is_error };
  }
}

export function claudeParser(resumed: boolean): StreamParser {
  // A resumed run may print its init line more than once; the run has one session.
  let announced = false;
  // The first message echoed is the prompt Foreman sent; later ones are a person's.
  let promptEchoed = false;
  let interrupted = false;
  // A limit the run ran into (Claude's rate_limit_event, or a 429 it would not wait out): its end is a pause.
  let limited: string | undefined;
  return {
    line(text) {
      const line = parseEventLine(text, lineSchema);
      if (!line) return [];
      const events: AgentEventInput[] = [];
      switch (line.type) {
        case 'system':
          if (line.subtype === 'init' && line.session_id && !announced) {
            announced = true;
            events.push({ type: 'session', sessionId: line.session_id, resumed });
          }
          if (line.subtype === 'api_retry') events.push(...retryEvents(line));
          break;
        case 'rate_limit_event': {
          const limit = limitEvent(line.rate_limit_info);
          if (limit) events.push(limit);
          if (limit?.type === 'limit') limited = limit.message;
          break;
        }
        case 'assistant':
          // Claude's own message for a call that failed for good carries the cause as a field.
          if (line.error === 'authentication_failed') {
            events.push({ type: 'result', summary: 'authentication failed', isError: true, failure: 'authentication' });
          }
          // A 429 whose retry-after Claude would not wait out ends the run with this message.
          if (line.error === 'rate_limit' && !limited) {
            limited = 'rate limited (HTTP 429)';
            events.push({ type: 'limit', message: limited });
          }
          for (const part of line.message.content) {
            if (part.type === 'text' && 'text' in part && part.text.trim()) events.push({ type: 'message', text: part.text });
            if (part.type === 'tool_use' && 'name' in part) {
              const files = editedFiles(part.name, part.input);
              events.push({ type: 'tool', name: part.name, detail: toolDetail(part.input), ...(files.length ? { files } : {}) });
            }
          }
          break;
        case 'user':
          if (line.isReplay) {
            if (promptEchoed) events.push({ type: 'told', text: userText(line.message.content) });
            promptEchoed = true;
            break;
          }
          if (userText(line.message.content).startsWith(interruptedMarker)) {
            interrupted = true;
            events.push({ type: 'interrupted' });
          }
          if (typeof line.message.content === 'string') break;
          for (const part of line.message.content) {
            if (part.type !== 'tool_result') continue;
            events.push({ type: 'toolResult', ok: !('is_error' in part && part.is_error), output: resultText(part).slice(0, 2000) });
          }
          break;
        case 'result': {
          const usage = line.usage;
          if (usage || line.total_cost_usd) {
            // Anthropic counts the three apart: input_tokens is the uncached part alone.
            events.push({
              type: 'usage',
              usage: {
                inputTokens: usage?.input_tokens ?? 0,
                cacheReadTokens: usage?.cache_read_input_tokens ?? 0,
                cacheWriteTokens: usage?.cache_creation_input_tokens ?? 0,
                outputTokens: usage?.output_tokens ?? 0,
                costUsd: line.total_cost_usd,
              },
            });
          }
          for (const denial of line.permission_denials ?? []) {
            events.push({ type: 'error', message: `permission denied: ${describeTool(denial.tool_name, toolDetail(denial.tool_input))}` });
          }
          const limitedEnd = line.is_error && (limited || line.api_error_status === 429);
          events.push(
            limitedEnd
              ? { type: 'result', summary: limited ?? 'rate limited (HTTP 429)', isError: true, failure: 'usageLimit' }
              : resultEvent(line, interrupted),
          );
          interrupted = false;
          break;
        }
      }
      return events;
    },
  };
}
