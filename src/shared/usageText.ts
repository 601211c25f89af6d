import type { Usage } from '../core/agentEvents';

/**
 * Tokens and cost as every view prints them (dashboard, tree, status bar, CLI), so the same run
 * reads the same everywhere: "12.4k tokens · $0.42".
 */

/** 950 → "950", 12_400 → "12.4k", 3_200_000 → "3.2M". */
export function formatTokens(tokens: number): string {
  if (tokens < 1000) return String(tokens);
  if (tokens < 1_000_000) return `${trim(tokens / 1000)}k`;
  return `${trim(tokens / 1_000_000)}M`;
}

function trim(value: number): string {
  return value >= 100 ? String(Math.round(value)) : value.toFixed(1).replace(/\.0$/, '');
}

/** Dollars to the cent; a cost below a cent is still shown as a cost, not as $0.00. */
export function formatCost(usd: number): string {
  if (usd === 0) return '$0';
  if (usd < 0.01) return '<$0.01';
  return `$${usd.toFixed(2)}`;
}

export function hasUsage(usage: Usage): boolean {
  return totalTokens(usage) > 0 || usage.costUsd > 0;
}

/** Every token the run used: fresh input, cache reads and writes, output. */
export function totalTokens(usage: Usage): number {
  return usage.inputTokens + usage.cacheReadTokens + usage.cacheWriteTokens + usage.outputTokens;
}

/**
 * "12.4k tokens · $0.42"; the cost is left out when the agent reports none (Codex reports tokens
 * only), so "$0" never reads as "free".
 */
export function formatUsage(usage: Usage): string {
  const tokens = `${formatTokens(totalTokens(usage))} tokens`;
  return usage.costUsd > 0 ? `${tokens} · ${formatCost(usage.costUsd)}` : tokens;
}

/**
 * The longer form for tooltips: "10,000 in · 2,400 out tokens · $0.4200", with the prompt cache
 * apart when there was one: "1,200 in · 8,800 cache read · 2,400 out tokens · $0.0412".
 */
export function describeUsage(usage: Usage): string {
  const count = (n: number) => n.toLocaleString('en-US');
  const cost = usage.costUsd > 0 ? ` · $${usage.costUsd.toFixed(4)}` : '';
  const cacheRead = usage.cacheReadTokens > 0 ? ` · ${count(usage.cacheReadTokens)} cache read` : '';
  const cacheWrite = usage.cacheWriteTokens > 0 ? ` · ${count(usage.cacheWriteTokens)} cache write` : '';
  return `${count(usage.inputTokens)} in${cacheRead}${cacheWrite} · ${count(usage.outputTokens)} out tokens${cost}`;
}
