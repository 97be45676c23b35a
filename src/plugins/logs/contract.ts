import { type } from "../../protocol/ark.ts";
import { defineContract } from "../../protocol/contract.ts";
import { lazy } from "../../protocol/lazy.ts";

export const MAX_LOG_LINES = 1000;
export const MAX_LOG_TEXT = 4000;

export const LogLevel = lazy(() => type("'debug' | 'info' | 'warn' | 'error'"));
export type LogLevel = typeof LogLevel.infer;

export const LogLine = lazy(() =>
	type({
		seq: "number.integer >= 0",
		time: "number",
		level: LogLevel,
		/** `server`, `session:<id>`, `env:<name>`. */
		source: "string <= 200",
		/** As the server wrote it (redacted); the UI makes control characters visible. */
		text: `string <= ${MAX_LOG_TEXT}`,
	}),
);
export type LogLine = typeof LogLine.infer;

export const LogsState = lazy(() => type({ lines: LogLine.array().atMostLength(MAX_LOG_LINES) }));
export type LogsState = typeof LogsState.infer;

const owner = { state: LogsState, methods: [] as const };

/** The server's recent log, live (new lines are pushed). Owners only: guests never hold it. */
export const logsContract = defineContract({
	name: "logs",
	version: 1,
	input: type({}),
	methods: {},
	variants: { deviceOwner: owner, owner, full: null, view: null },
});
