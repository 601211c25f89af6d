/**
 * How an agent's end is judged (ARCHITECTURE §6): success, a failed attempt (retried), or a
 * configuration problem (fails the task at once: retrying cannot fix a flag the CLI does not know
 * or a missing login). The patterns are what the real CLIs print (REAL-AGENTS-TESTING.md).
 */
import type { AgentVerdict } from '../../../engine/ports';
import type { RunEvidence } from './adapter';

/** A CLI that rejected its own arguments: clap's, commander's and yargs' wording. */
const usageErrors = [/unexpected argument/i, /unrecognized (option|argument)/i, /unknown (option|argument|flag)/i, /invalid value .* for/i];
/** No or bad credentials. */
const authErrors = [
  /not logged in/i,
  /invalid api key/i,
  /authentication[_ ](error|failed)/i,
  /\b401\b.*unauthori[sz]ed|unauthori[sz]ed.*\b401\b/i,
  /please run \S+ login/i,
  /missing (api key|credentials)/i,
];

const authenticationWords = 'authentication failed: ';

function firstLine(text: string, max = 300): string {
  const line =
    text
      .split('\n')
      .map((part) => part.trim())
      .find((part) => part.length > 0) ?? '';
  return line.length > max ? `${line.slice(0, max - 1)}…` : line;
}

/** The line that shows a configuration problem, if the run's output has one. */
export function configurationProblem(evidence: RunEvidence): string | undefined {
  const texts = [...evidence.errors, evidence.result?.isError ? evidence.result.summary : '', evidence.outputTail];
  for (const text of texts) {
    for (const line of text.split('\n')) {
      if (authErrors.some((pattern) => pattern.test(line))) return `${authenticationWords}${firstLine(line)}`;
      // Usage errors are exit 2 by convention; elsewhere the words may be the agent quoting a tool.
      if (evidence.code === 2 && usageErrors.some((pattern) => pattern.test(line)))
        return `the agent CLI refused its arguments: ${firstLine(line)}`;
    }
  }
  return undefined;
}

/** What a person does about an end that only a setting can fix, by kind of end. */
export interface FailureAdvice {
  /** "set ANTHROPIC_API_KEY in the profile's env, or run `claude /login`". */
  readonly authentication: string;
}

const genericAdvice: FailureAdvice = { authentication: "check the agent's login or the API key in the profile's env" };

/** An end the agent reported in structured fields, in words; undefined when it reported none. */
function structuredFailure(evidence: RunEvidence, advice: FailureAdvice): AgentVerdict | undefined {
  const result = evidence.result;
  switch (result?.failure) {
    case undefined:
      return undefined;
    case 'authentication':
      return { outcome: 'setup', reason: `${result.summary}: ${advice.authentication}` };
    case 'budget':
      return { outcome: 'configuration', reason: `${result.summary} (the profile's maxBudgetUsd); raise it to let the task go on` };
    case 'maxTurns':
      return { outcome: 'configuration', reason: `${result.summary}; raise the limit in the profile to let the task go on` };
    case 'usageLimit': {
      const resetsAt = evidence.limit?.resetsAt;
      return resetsAt === undefined ? { outcome: 'limit', reason: result.summary } : { outcome: 'limit', reason: result.summary, resumesAt: resetsAt };
    }
  }
}

/** The shared judgement: structured end, configuration problem, then exit code, then the agent's own verdict. */
export function judgeRun(evidence: RunEvidence, advice: FailureAdvice = genericAdvice): AgentVerdict {
  const structured = structuredFailure(evidence, advice);
  if (structured) return structured;
  const problem = configurationProblem(evidence);
  if (problem) return { outcome: problem.startsWith(authenticationWords) ? 'setup' : 'configuration', reason: problem };
  if (evidence.code !== 0) {
    const detail = firstLine(evidence.errors.at(-1) ?? (evidence.result?.isError ? evidence.result.summary : ''));
    return { outcome: 'failed', reason: detail ? `${evidence.reason}: ${detail}` : evidence.reason };
  }
  if (evidence.result?.isError)
    return { outcome: 'failed', reason: `the agent ended with an error: ${firstLine(evidence.result.summary)}` };
  const summary = evidence.result?.summary || evidence.lastMessage;
  return summary ? { outcome: 'success', summary } : { outcome: 'success' };
}
