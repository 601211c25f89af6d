/**
 * The Anthropic Messages API wire format for the scripted model: one assistant message as the
 * streamed events Claude Code parses (`message_start`, per block `content_block_start` / `_delta` /
 * `_stop`, `message_delta` with the stop reason and usage, `message_stop`), or as one JSON body.
 */

/** A content block of an assistant message. */
export type AnthropicBlock =
  | { readonly type: 'text'; readonly text: string }
  | { readonly type: 'tool_use'; readonly id: string; readonly name: string; readonly input: Readonly<Record<string, unknown>> };

export interface AnthropicAnswer {
  readonly id: string;
  readonly model: string;
  readonly blocks: readonly AnthropicBlock[];
  readonly inputTokens: number;
  readonly outputTokens: number;
}

export interface ServerSentEvent {
  readonly event: string;
  readonly data: unknown;
}

function stopReason(answer: AnthropicAnswer): 'tool_use' | 'end_turn' {
  return answer.blocks.some((block) => block.type === 'tool_use') ? 'tool_use' : 'end_turn';
}

function usage(inputTokens: number, outputTokens: number) {
  return { input_tokens: inputTokens, output_tokens: outputTokens, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 };
}

export function anthropicStream(answer: AnthropicAnswer): ServerSentEvent[] {
  const events: ServerSentEvent[] = [
    {
      event: 'message_start',
      data: {
        type: 'message_start',
        message: {
          id: answer.id,
          type: 'message',
          role: 'assistant',
          model: answer.model,
          content: [],
          stop_reason: null,
          stop_sequence: null,
          usage: usage(answer.inputTokens, 1),
        },
      },
    },
  ];
  answer.blocks.forEach((block, index) => {
    // Blocks open empty and fill through deltas, as the real service streams them.
    const opened = block.type === 'text' ? { type: 'text', text: '' } : { type: 'tool_use', id: block.id, name: block.name, input: {} };
    const delta =
      block.type === 'text'
        ? { type: 'text_delta', text: block.text }
        : { type: 'input_json_delta', partial_json: JSON.stringify(block.input) };
    events.push(
      { event: 'content_block_start', data: { type: 'content_block_start', index, content_block: opened } },
      { event: 'content_block_delta', data: { type: 'content_block_delta', index, delta } },
      { event: 'content_block_stop', data: { type: 'content_block_stop', index } },
    );
  });
  events.push(
    {
      event: 'message_delta',
      data: {
        type: 'message_delta',
        delta: { stop_reason: stopReason(answer), stop_sequence: null },
        usage: usage(answer.inputTokens, answer.outputTokens),
      },
    },
    { event: 'message_stop', data: { type: 'message_stop' } },
  );
  return events;
}

/** The same answer for a request without `stream: true`. */
export function anthropicMessage(answer: AnthropicAnswer): unknown {
  return {
    id: answer.id,
    type: 'message',
    role: 'assistant',
    model: answer.model,
    content: answer.blocks,
    stop_reason: stopReason(answer),
    stop_sequence: null,
    usage: usage(answer.inputTokens, answer.outputTokens),
  };
}
