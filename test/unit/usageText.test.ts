import assert from 'node:assert/strict';
import { test } from 'node:test';
import { describeUsage, formatCost, formatTokens, formatUsage, hasUsage } from '../../src/shared/usageText';

test('tokens and cost read short and the same everywhere', () => {
  assert.deepEqual([0, 950, 1000, 12_400, 123_456, 3_200_000].map(formatTokens), ['0', '950', '1k', '12.4k', '123k', '3.2M']);
  assert.deepEqual([0, 0.004, 0.01, 0.4249, 12].map(formatCost), ['$0', '<$0.01', '$0.01', '$0.42', '$12.00']);
  assert.equal(
    formatUsage({ inputTokens: 10_000, outputTokens: 2_400, cacheReadTokens: 0, cacheWriteTokens: 0, costUsd: 0.42 }),
    '12.4k tokens · $0.42',
  );
  assert.equal(
    formatUsage({ inputTokens: 900, outputTokens: 50, cacheReadTokens: 0, cacheWriteTokens: 0, costUsd: 0 }),
    '950 tokens',
    'no cost reported is not "$0"',
  );
  assert.equal(
    describeUsage({ inputTokens: 10_000, outputTokens: 2_400, cacheReadTokens: 0, cacheWriteTokens: 0, costUsd: 0.42 }),
    '10,000 in · 2,400 out tokens · $0.4200',
  );
  assert.equal(hasUsage({ inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0, costUsd: 0 }), false);
  assert.equal(hasUsage({ inputTokens: 0, outputTokens: 1, cacheReadTokens: 0, cacheWriteTokens: 0, costUsd: 0 }), true);
});

test('prompt-cache tokens count in the total and read apart in the long form', () => {
  const cached = { inputTokens: 1_200, outputTokens: 2_400, cacheReadTokens: 8_800, cacheWriteTokens: 500, costUsd: 0.0412 };
  assert.equal(formatUsage(cached), '12.9k tokens · $0.04');
  assert.equal(describeUsage(cached), '1,200 in · 8,800 cache read · 500 cache write · 2,400 out tokens · $0.0412');
  assert.equal(hasUsage({ inputTokens: 0, outputTokens: 0, cacheReadTokens: 3, cacheWriteTokens: 0, costUsd: 0 }), true);
});
