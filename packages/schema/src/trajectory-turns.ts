import type { Trajectory, TrajectoryStep } from "./trajectory.js";

/** One output the model was shown: a command's output or a tool or user message after an action. */
export interface TurnObservation {
  /** Index of the step in `trajectory.steps`. */
  stepIndex: number;
  text: string;
  /** Seconds from the trajectory's start to this step; null without times. */
  seconds: number | null;
}

/** One turn of an agent: an action (a model reply, or a command) and what it was shown back. */
export interface TrajectoryTurn {
  /** 1-based: `3` is the third action. */
  number: number;
  /** Index of the step that began the turn (for links into a trajectory view). */
  stepIndex: number;
  /** The action's text: the assistant message and the commands run for it. */
  action: string;
  observations: TurnObservation[];
  /** Input plus output tokens of the model calls up to and including this turn; null without model calls. */
  tokens: number | null;
}

function isAction(step: TrajectoryStep, byMessages: boolean): boolean {
  if (byMessages) return step.type === "message" && step.role === "assistant";
  return step.type === "command";
}

function observationText(step: TrajectoryStep): string | undefined {
  if (step.type === "command") return step.output;
  if (step.type === "message" && (step.role === "tool" || step.role === "user"))
    return step.content;
  return undefined;
}

/** The trajectory's start in milliseconds: `startedAt`, else its first step's time. */
function startOf(trajectory: Pick<Trajectory, "startedAt" | "steps">): number | undefined {
  const first = trajectory.startedAt ?? trajectory.steps.find((step) => step.at)?.at;
  const start = first === undefined ? Number.NaN : Date.parse(first);
  return Number.isNaN(start) ? undefined : start;
}

/**
 * Cuts a trajectory into the agent's turns. A turn begins at each assistant message (or, in a
 * trajectory without assistant messages, at each command) and holds the outputs that followed it
 * (command outputs, tool and user messages); the system and task messages before the first turn
 * are not observations. A model call counts toward the turn of the next output after it (a
 * trajectory whose calls all come after its other steps, a gateway's record without times, gives
 * its k-th call to turn k).
 *
 * @example
 * ```ts
 * const turns = trajectoryTurns(trajectory);
 * turns[3]?.observations[0]?.text; // what the fourth action printed
 * ```
 */
export function trajectoryTurns(
  trajectory: Pick<Trajectory, "startedAt" | "steps">,
): TrajectoryTurn[] {
  const { steps } = trajectory;
  const byMessages = steps.some((step) => isAction(step, true));
  const start = startOf(trajectory);
  const turns: TrajectoryTurn[] = [];
  const callTokens: number[] = [];
  let pending = 0;
  let pendingCalls = 0;
  let attributed = false;
  const perTurn: number[] = [];
  steps.forEach((step, stepIndex) => {
    if (step.type === "model-call") {
      const tokens = step.inputTokens + step.outputTokens;
      callTokens.push(tokens);
      pending += tokens;
      pendingCalls += 1;
      return;
    }
    if (isAction(step, byMessages))
      turns.push({
        number: turns.length + 1,
        stepIndex,
        action: "",
        observations: [],
        tokens: null,
      });
    const turn = turns.at(-1);
    if (!turn) return;
    if (step.type === "message" && step.role === "assistant") turn.action += `${step.content}\n`;
    if (step.type === "command") turn.action += `${step.command}\n`;
    const text = observationText(step);
    if (text === undefined) return;
    const at = step.at === undefined ? Number.NaN : Date.parse(step.at);
    turn.observations.push({
      stepIndex,
      text,
      seconds: start === undefined || Number.isNaN(at) ? null : Math.max(0, (at - start) / 1000),
    });
    perTurn[turn.number - 1] = (perTurn[turn.number - 1] ?? 0) + pending;
    if (pendingCalls > 0) attributed = true;
    pending = 0;
    pendingCalls = 0;
  });
  if (callTokens.length === 0) return turns;
  // A record whose calls all trail its other steps: the k-th call is the k-th turn's.
  const trailing = !attributed;
  let total = 0;
  for (const turn of turns) {
    total += trailing ? (callTokens[turn.number - 1] ?? 0) : (perTurn[turn.number - 1] ?? 0);
    turn.tokens = total;
  }
  return turns;
}
