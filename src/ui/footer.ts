import { truncateToWidth, visibleWidth } from "@earendil-works/pi-tui";
import { formatTokens, shortenHome, visibleText } from "./text.ts";
import { ThemedLines } from "./themed-lines.ts";

export interface FooterData {
	readonly cwd: string | undefined;
	readonly branch?: string | null;
	readonly home: string | undefined;
	readonly title: string;
	/** The open subagent conversation's title: the crumb reads `cwd • title › subagent`. */
	readonly conversation?: string;
	readonly usage: { input: number; output: number; cacheRead: number; cacheWrite: number; cost: number } | undefined;
	/** The whole session's cost (its subagents' too): shown, labelled, when it is more than the conversation's. */
	readonly sessionCost?: number;
	readonly cacheHitRate: number | null;
	readonly contextTokens: number | null;
	/** Unknown since a compaction or fresh context (pi shows `?`). */
	readonly contextUnknown?: boolean;
	/** pi's `(auto)`: the server compacts by itself when the context is nearly full. */
	readonly autoCompaction?: boolean;
	readonly model: { id: string; provider: string; contextWindow: number; reasoning: boolean } | null;
	/** Providers with usable models: with more than one, pi names the model's provider when there is room. */
	readonly providers?: number;
	readonly thinkingLevel: string;
	/** Plugin statuses, already sorted by key. */
	readonly statuses: readonly string[];
}

/** pi's footer: cwd • title; the usage stats left, the model • thinking level right; plugin statuses. */
export class Footer extends ThemedLines<FooterData> {
	protected build(width: number): string[] {
		const t = this.theme.current;
		const d = this.data;
		const where = d.cwd ? `${shortenHome(d.cwd, d.home)}${d.branch ? ` (${visibleText(d.branch, false)})` : ""}` : "";
		const crumb = d.conversation ? ` › ${visibleText(d.conversation, false)}` : "";
		const place = `${[where, d.title ? visibleText(d.title, false) : ""].filter(Boolean).join(" • ")}${crumb}`;
		const lines = [t.fg("dim", truncateToWidth(place, width, t.fg("dim", "...")))];

		const stats: string[] = [];
		const u = d.usage;
		if (u) {
			if (u.input) stats.push(`↑${formatTokens(u.input)}`);
			if (u.output) stats.push(`↓${formatTokens(u.output)}`);
			if (u.cacheRead) stats.push(`R${formatTokens(u.cacheRead)}`);
			if (u.cacheWrite) stats.push(`W${formatTokens(u.cacheWrite)}`);
			if ((u.cacheRead || u.cacheWrite) && d.cacheHitRate !== null)
				stats.push(`CH${(d.cacheHitRate * 100).toFixed(1)}%`);
			if (u.cost) stats.push(`$${u.cost.toFixed(3)}`);
		}
		const session = d.sessionCost ?? 0;
		if (session.toFixed(3) !== (u?.cost ?? 0).toFixed(3) && session > (u?.cost ?? 0)) {
			stats.push(`session $${session.toFixed(3)}`);
		}
		const window = d.model?.contextWindow ?? 0;
		const percent = window > 0 && d.contextTokens !== null ? (d.contextTokens / window) * 100 : 0;
		const context = `${d.contextUnknown ? "?" : `${percent.toFixed(1)}%`}/${formatTokens(window)}${d.autoCompaction ? " (auto)" : ""}`;
		const contextText =
			percent > 90 ? t.fg("error", context) : percent > 70 ? t.fg("warning", context) : t.fg("dim", context);
		const left = [...stats.map((s) => t.fg("dim", s)), contextText].join(" ");

		const model = d.model;
		const name = model ? visibleText(model.id, false) : "unknown";
		const level = model?.reasoning ? ` • ${d.thinkingLevel === "off" ? "thinking off" : d.thinkingLevel}` : "";
		let right = `${name}${level}`;
		const room = width - visibleWidth(left) - 2;
		const named = model && (d.providers ?? 0) > 1 ? `(${visibleText(model.provider, false)}) ${right}` : right;
		if (visibleWidth(named) <= room) right = named;
		if (room <= 0) right = "";
		else if (visibleWidth(right) > room) right = truncateToWidth(right, room, "");
		const gap = Math.max(2, width - visibleWidth(left) - visibleWidth(right));
		lines.push(truncateToWidth(`${left}${" ".repeat(gap)}${t.fg("dim", right)}`, width, ""));
		if (d.statuses.length)
			lines.push(truncateToWidth(d.statuses.map((s) => visibleText(s, false)).join(" "), width, ""));
		return lines;
	}
}
