/**
 * What a model's tokens cost, for agents that report tokens but no money (Codex). Claude Code
 * reports its own cost; Codex's `turn.completed` carries token counts only, so Foreman prices them.
 *
 * List prices in US dollars per million tokens, standard tier, requests up to 272K input tokens
 * (longer ones cost more; Fast/priority costs double — neither is visible in Codex's events, so
 * these are estimates, as every Codex cost meter's are). Sources, read 2026-11-28: OpenAI's model
 * pages (developers.openai.com/api/docs/models/<id>) as quoted by the GPT-6 Sol/Luna launch notes
 * of 2026-09-22 (docs.litellm.ai/blog/gpt_6_sol_luna), the GPT-6.1 Sol launch of 2026-09-29
 * (docs.apiyi.com/en/news/gpt-6-1-sol-launch), GPT-6 Astra (2026-09-03) and GPT-5.x price lists
 * (docs.apiyi.com/models, "matching the provider"). A profile's `prices` override or add to these.
 */
import { z } from 'zod';
import type { Usage } from './agentEvents';

const perMillion = z.number({ message: 'a price is a number of US dollars per million tokens' }).min(0, 'a price is ≥ 0').max(10_000);

/** US dollars per million tokens of one model. */
export const modelPriceSchema = z.strictObject({
  /** Input tokens read fresh (not from the prompt cache). */
  input: perMillion,
  /** Input tokens read from the prompt cache. */
  cachedInput: perMillion,
  /** Input tokens written to the prompt cache; the input price when the model lists none. */
  cacheWrite: perMillion.optional(),
  /** Output tokens, reasoning included. */
  output: perMillion,
});
export type ModelPrice = z.infer<typeof modelPriceSchema>;

/** Prices by model id, as a profile's `prices` setting holds them. */
export const modelPricesSchema = z.record(z.string().min(1, 'a model id must not be empty'), modelPriceSchema);
export type ModelPrices = z.infer<typeof modelPricesSchema>;

/** The model Codex 0.169 uses when neither its config nor the command line names one (its rollouts say so). */
export const codexDefaultModel = 'gpt-6.1-sol';

/** The OpenAI models Codex offers, at their list prices (see the sources above). */
export const builtinModelPrices: Readonly<ModelPrices> = {
  'gpt-6.1-sol': { input: 2, cachedInput: 0.1, cacheWrite: 2.5, output: 10 },
  'gpt-6-sol': { input: 2, cachedInput: 0.2, cacheWrite: 2.5, output: 10 },
  'gpt-6-astra': { input: 10, cachedInput: 1, cacheWrite: 12.5, output: 50 },
  'gpt-6-luna': { input: 0.1, cachedInput: 0.01, cacheWrite: 0.125, output: 0.5 },
  'gpt-5.6-sol': { input: 4, cachedInput: 0.4, output: 20 },
  'gpt-5.6-terra': { input: 2, cachedInput: 0.2, output: 12 },
  'gpt-5.6-luna': { input: 0.2, cachedInput: 0.02, output: 1.2 },
  'gpt-5.5': { input: 5, cachedInput: 0.5, output: 30 },
  'gpt-5.4': { input: 2.5, cachedInput: 0.25, output: 15 },
};

/**
 * The price of `model`: the profile's own first, then the built-in table. A provider prefix
 * (`openai/gpt-6-sol`) and a date suffix (`gpt-6-sol-2026-09-22`) name the same model.
 */
export function priceOf(model: string, overrides: Readonly<ModelPrices> = {}): ModelPrice | undefined {
  const bare = model.replace(/^openai\//, '');
  const undated = bare.replace(/-\d{4}-\d{2}-\d{2}$/, '');
  for (const name of [model, bare, undated]) {
    const price = Object.hasOwn(overrides, name)
      ? overrides[name]
      : Object.hasOwn(builtinModelPrices, name)
        ? builtinModelPrices[name]
        : undefined;
    if (price) return price;
  }
  return undefined;
}

/** US dollars for these tokens (`inputTokens` excludes the cached and cache-written ones). */
export function costOf(usage: Omit<Usage, 'costUsd'>, price: ModelPrice): number {
  const dollars =
    usage.inputTokens * price.input +
    usage.cacheReadTokens * price.cachedInput +
    usage.cacheWriteTokens * (price.cacheWrite ?? price.input) +
    usage.outputTokens * price.output;
  return dollars / 1_000_000;
}
