/**
 * Where the launcher's own problems go: the running launcher's list (shown with --verbose and when p2 exits
 * with an error), or, between runs, one line on standard error with its controls made visible.
 */
import { errorText } from "./actions/context.ts";
import { terminalLine } from "./visible-text.ts";

type Sink = (text: string) => void;

const toStderr: Sink = (text) => process.stderr.write(`p2: ${terminalLine(text)}\n`);
let sink: Sink = toStderr;

export function logProblem(text: string): void {
	sink(text);
}

/** The running launcher takes the log until it ends (the terminal is its screen meanwhile). */
export function takeLog(next: Sink): () => void {
	sink = next;
	return () => {
		if (sink === next) sink = toStderr;
	};
}

/**
 * Nothing the launcher awaits and forgets may end it: an unhandled rejection is logged. An uncaught exception
 * leaves the launcher in an unknown state: it is logged and p2 exits (the exit handler puts the terminal back).
 */
export function guardLauncherProcess(): void {
	process.on("unhandledRejection", (reason) => logProblem(`unhandled rejection: ${errorText(reason)}`));
	process.on("uncaughtException", (error) => {
		logProblem(`uncaught exception: ${errorText(error)}`);
		process.exit(1);
	});
}
