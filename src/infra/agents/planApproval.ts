/**
 * A plan-first run's approval (issue 27): the agent plans in its plan mode and asks for permission
 * on its own streams (adapter `input.permissions`). Its plan (Claude's `ExitPlanMode`) waits for a
 * person: the plan goes into the transcript, the worker into the needs-input wait every view shows
 * ("waiting for you: approve the plan"), and `foreman answer <worker> allow` approves it — the same
 * session then carries it out in `acceptEdits`, in the same turn — while `deny --note <why>` hands
 * the note to the agent, which stays in plan mode and plans again.
 *
 * Anything else the agent asks on these streams is refused at once, as print mode refuses what no
 * one may answer: before approval that is every change (plan mode), after it the tools Foreman's
 * hooks neither allowed nor put to a person.
 */
import { type AgentEventInput, describeTool, toolDetail } from '../../core/agentEvents';
import { planTool, planWaitMessage } from '../../core/planModeGate';
import { type Disposable, MutableDisposable } from '../../base/lifetime';
import { type Clock, systemClock } from '../../engine/ports';
import type { PermissionPrompts, PermissionRequest, StreamParser } from './kinds';

/** A person's answer to the plan, as the engine hands it over once. */
export interface PlanAnswer {
  readonly decision: 'allow' | 'deny';
  readonly note?: string;
}

/** How often the answer is looked for while a plan waits (as the hook looks for its answer). */
const answerPollMs = 500;

export class PlanApproval {
  private pending: PermissionRequest | undefined;
  private approved = false;
  /** Looks for the answer while a plan waits. */
  private readonly timer = new MutableDisposable<Disposable>();
  private asking = false;

  constructor(
    private readonly prompts: PermissionPrompts,
    /** Writes one line to the agent's stdin. */
    private readonly write: (line: string) => void,
    /** The person's answer, if one came since the wait began. */
    private readonly takeAnswer: () => Promise<PlanAnswer | undefined>,
    private readonly log: (line: string) => void,
    private readonly clock: Clock = systemClock,
  ) {}

  /** Whether a plan waits for a person: quiet on purpose, neither stalled nor failed. */
  get waiting(): boolean {
    return this.pending !== undefined;
  }

  /** The kind's parser, with the permission requests of its stream handled here first. */
  reading(parser: StreamParser): StreamParser {
    return { line: (text) => [...this.line(text), ...parser.line(text)] };
  }

  /** One line of the agent's stdout: a permission request is handled here, with the events it means. */
  line(text: string): AgentEventInput[] {
    const request = this.prompts.request(text);
    if (!request) return [];
    if (request.toolName !== planTool || this.approved) {
      const why = this.approved
        ? "no person is at the prompt of this run: a tool call outside the allow-list goes through Foreman's hooks; do without it"
        : 'plan mode: change nothing until the plan is approved; present the plan with ExitPlanMode';
      this.write(this.prompts.deny(request, why));
      return [{ type: 'error', message: `permission denied: ${describeTool(request.toolName, toolDetail(request.input))} (${why})` }];
    }
    const plan = typeof request.input['plan'] === 'string' ? request.input['plan'] : '';
    this.pending = request;
    this.timer.value ??= this.clock.every(() => void this.look(), answerPollMs);
    return [
      { type: 'message', text: `Plan for approval:\n\n${plan}` },
      { type: 'needsInput', message: planWaitMessage(plan) },
    ];
  }

  /** The run ended: nothing waits any more. */
  dispose(): void {
    this.timer.clear();
    this.pending = undefined;
  }

  private async look(): Promise<void> {
    const request = this.pending;
    if (!request || this.asking) return;
    this.asking = true;
    try {
      const answer = await this.takeAnswer();
      if (!answer || this.pending !== request) return;
      this.pending = undefined;
      this.timer.clear();
      if (answer.decision === 'allow') {
        this.approved = true;
        this.write(this.prompts.allow(request, true));
        return;
      }
      const note = answer.note ? ` Their note: ${answer.note}` : '';
      this.write(
        this.prompts.deny(
          request,
          `A person rejected this plan.${note} Stay in plan mode, revise the plan and present it again with ExitPlanMode.`,
        ),
      );
    } catch (error) {
      this.log(`plan approval: ${(error as Error).message}`);
    } finally {
      this.asking = false;
    }
  }
}
