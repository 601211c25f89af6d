/**
 * The OpenAI Responses API wire format for the scripted model, as Codex parses it:
 * `response.created`, per output item `response.output_item.added` / `response.output_item.done`,
 * then `response.completed` carrying the whole response with its usage.
 */
import type { AnswerStep } from './scriptedModel';
import type { ServerSentEvent } from './scriptedModelAnthropic';

/** An output item of a response. */
export type OpenAiItem =
  | {
      readonly type: 'custom_tool_call';
      readonly call_id: string;
      readonly name: string;
      readonly input: string;
      readonly status: 'completed';
    }
  | {
      readonly type: 'message';
      readonly id: string;
      readonly role: 'assistant';
      readonly status: 'completed';
      readonly content: readonly { readonly type: 'output_text'; readonly text: string; readonly annotations: readonly never[] }[];
    };

export interface OpenAiAnswer {
  readonly id: string;
  readonly model: string;
  readonly items: readonly OpenAiItem[];
  readonly inputTokens: number;
  readonly outputTokens: number;
  /** Of `inputTokens`, those read from / written to the prompt cache, as OpenAI counts them. */
  readonly cachedTokens?: number;
  readonly cacheWriteTokens?: number;
}

/**
 * Codex 0.169 offers one custom tool, `exec`, whose input is JavaScript run in an isolate; its
 * nested `tools.exec_command` runs a shell command and `text()` returns output to the model.
 */
export function codexExecInput(command: string): string {
  return `const r = await tools.exec_command({cmd: ${JSON.stringify(command)}, login: false}); text(r.output ?? '');`;
}

/** A shell command that writes `content` to `path` exactly (Codex has no file-write tool of its own here). */
export function writeFileCommand(path: string, content: string): string {
  const quote = (text: string): string => `'${text.replace(/'/g, `'\\''`)}'`;
  return `printf '%s' ${quote(content)} > ${quote(path)}`;
}

export function openAiItems(step: AnswerStep, callId: string, messageId: string): OpenAiItem[] {
  if ('bash' in step)
    return [{ type: 'custom_tool_call', call_id: callId, name: 'exec', input: codexExecInput(step.bash), status: 'completed' }];
  if ('tool' in step) throw new Error(`a tool step (${step.tool.name}) is Claude's; Codex has only its exec tool here`);
  if ('write' in step) {
    const command = writeFileCommand(step.write.path, step.write.content);
    return [{ type: 'custom_tool_call', call_id: callId, name: 'exec', input: codexExecInput(command), status: 'completed' }];
  }
  return [
    {
      type: 'message',
      id: messageId,
      role: 'assistant',
      status: 'completed',
      content: [{ type: 'output_text', text: step.text, annotations: [] }],
    },
  ];
}

function usage(answer: OpenAiAnswer) {
  return {
    input_tokens: answer.inputTokens,
    input_tokens_details: { cached_tokens: answer.cachedTokens ?? 0, cache_write_tokens: answer.cacheWriteTokens ?? 0 },
    output_tokens: answer.outputTokens,
    output_tokens_details: { reasoning_tokens: 0 },
    total_tokens: answer.inputTokens + answer.outputTokens,
  };
}

export function openAiResponse(answer: OpenAiAnswer, status: 'in_progress' | 'completed'): unknown {
  const done = status === 'completed';
  return {
    id: answer.id,
    object: 'response',
    created_at: Math.floor(Date.now() / 1000),
    status,
    model: answer.model,
    output: done ? answer.items : [],
    usage: done ? usage(answer) : null,
  };
}

export function openAiStream(answer: OpenAiAnswer): ServerSentEvent[] {
  let sequence = 0;
  const event = (type: string, fields: Record<string, unknown>): ServerSentEvent => ({
    event: type,
    data: { type, sequence_number: sequence++, ...fields },
  });
  const events = [event('response.created', { response: openAiResponse(answer, 'in_progress') })];
  answer.items.forEach((item, index) => {
    events.push(
      event('response.output_item.added', { output_index: index, item }),
      event('response.output_item.done', { output_index: index, item }),
    );
  });
  events.push(event('response.completed', { response: openAiResponse(answer, 'completed') }));
  return events;
}
