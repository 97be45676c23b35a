/**
 * The subagent tool's card: the task, the model and the status; while the subagent works, what it is doing;
 * when it is done, its final answer (and, expanded, what it did). It names the conversation and /agents.
 */

import { visibleText } from "../../../ui/text.ts";
import type { Theme } from "../../../ui/theme/theme.ts";
import type { ToolCardData, ToolView } from "../../../ui/tools/tool-card.ts";
import { readProgress } from "../contract.ts";

const ANSWER_LINES = 10;
const TASK = 80;

const text = (v: unknown) => (typeof v === "string" ? v : "");
const seconds = (ms: number | null) => `${((ms ?? 0) / 1000).toFixed(1)}s`;

function own(details: ToolCardData["details"], key: string): unknown {
	return details && Object.hasOwn(details, key) ? details[key] : undefined;
}

/** The result's text without the trace and the trailing note the model reads. */
function answerOf(output: string): string {
	const cut = output.indexOf("\n\nWhat it did:");
	const body = cut >= 0 ? output.slice(0, cut) : output.replace(/\n\n\(conversation [^)]*\)$/, "");
	return body.trim();
}

export function subagentCard(data: ToolCardData, t: Theme): ToolView {
	const task = visibleText(text(data.args.task).replace(/\s+/g, " ").trim(), false);
	const shortTask = task.length > TASK ? `${task.slice(0, TASK - 1)}…` : task;
	const title = `${t.bold(t.fg("toolTitle", "subagent"))} ${t.fg("accent", shortTask)}`;
	const progress = data.state === "pending" ? readProgress(data.output) : null;
	const conversation = text(own(data.details, "conversation")) || progress?.conversation || "";
	const model = text(own(data.details, "model")) || progress?.model || text(data.args.model);
	const status =
		data.state === "pending"
			? "running"
			: text(own(data.details, "status")) || (data.state === "error" ? "failed" : "");
	const tone = status === "done" ? "success" : status === "running" ? "accent" : status ? "error" : "muted";
	const facts = [model ? t.fg("muted", visibleText(model, false)) : "", status ? t.fg(tone, status) : ""].filter(
		Boolean,
	);
	const elapsed = data.state === "pending" ? `Elapsed ${seconds(data.elapsedMs)}` : `Took ${seconds(data.elapsedMs)}`;
	const body: string[] = ["", `${facts.join(t.fg("muted", " · "))}${t.fg("muted", ` · ${elapsed}`)}`];
	if (data.state === "pending") {
		const activity = progress?.activity ?? "";
		if (activity) body.push(t.fg("toolOutput", visibleText(activity, false)));
	} else {
		const answer = visibleText(data.state === "error" ? data.output : answerOf(data.output))
			.split("\n")
			.map((l) => t.fg(data.state === "error" ? "error" : "toolOutput", l));
		body.push("");
		if (data.expanded || answer.length <= ANSWER_LINES) body.push(...answer);
		else {
			body.push(...answer.slice(0, ANSWER_LINES));
			body.push(t.fg("muted", `... (${answer.length - ANSWER_LINES} more lines, ctrl+o to expand)`));
		}
		const trace = own(data.details, "trace");
		if (data.expanded && Array.isArray(trace) && trace.length) {
			body.push("", t.fg("muted", "What it did:"));
			for (const line of trace) body.push(t.fg("muted", `- ${visibleText(text(line), false)}`));
		}
	}
	if (conversation) {
		body.push(
			"",
			`${t.fg("muted", "Conversation ")}${t.fg("accent", visibleText(conversation, false))}${t.fg("muted", " · /agents opens it")}`,
		);
	}
	return { title, body };
}
