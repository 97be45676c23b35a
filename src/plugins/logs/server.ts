/**
 * The server's log for its owners (`/logs`): the recent entries of the core's log, and each new one pushed as
 * it is written. Nothing is read from the request: owners see what the server logged, already redacted.
 */
import { LiveState, type LogEntry, type ServerPlugin } from "../../server/plugin.ts";
import { type LogLine, type LogsState, logsContract, MAX_LOG_LINES, MAX_LOG_TEXT } from "./contract.ts";

function lineOf(entry: LogEntry): LogLine {
	return {
		seq: entry.seq,
		time: entry.time,
		level: entry.level,
		source: entry.source.slice(0, 200),
		text: entry.text.slice(0, MAX_LOG_TEXT),
	};
}

export const logsPlugin: ServerPlugin = {
	name: "logs",
	register(ctx) {
		let live: LiveState<LogsState> | undefined;
		let holders = 0;
		let unsubscribe: (() => void) | undefined;
		ctx.host.serve(logsContract, {
			open() {
				if (!live) {
					const view = new LiveState<LogsState>({ lines: ctx.log.recent().slice(-MAX_LOG_LINES).map(lineOf) });
					live = view;
					unsubscribe = ctx.log.subscribe((entry) => {
						if (entry.resolves !== undefined) return;
						const over = view.state.lines.length + 1 - MAX_LOG_LINES;
						view.update([
							...(over > 0 ? [{ op: "splice" as const, path: ["lines"], start: 0, remove: over, items: [] }] : []),
							{ op: "push", path: ["lines"], items: [lineOf(entry)] },
						]);
					});
				}
				holders++;
				return {
					state: live,
					methods: {},
					release() {
						if (--holders > 0) return;
						unsubscribe?.();
						unsubscribe = undefined;
						live = undefined;
					},
				};
			},
		});
	},
};
