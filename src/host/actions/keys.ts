/** The launcher's own keys that need no file of their own: copy the last answer, attach, suspend. */
import { attachFile } from "./attach.ts";
import { type ActionContext, errorText } from "./context.ts";
import { copyText } from "./copy.ts";

/** A process still running this long after its own SIGTSTP was not stopped (a stopped one runs no timers). */
const NOT_STOPPED_MS = 300;

/** Ctrl+X: the UI's last answer (or selection) to the clipboard; the person's key is the consent. */
export async function copyLastAnswer<W>(ctx: ActionContext<W>): Promise<void> {
	const { host, worker } = ctx;
	const text = await host.ask(worker, "copyText");
	if (!host.current(worker)) return;
	const done = (ok: boolean, detail: string) =>
		host.post(worker, { kind: "actionDone", action: "copy.key", ok, detail });
	if (!text) return done(false, "Nothing to copy");
	try {
		await copyText(host, text);
		done(true, `Copied ${text.length} characters`);
	} catch (error) {
		done(false, errorText(error));
	}
}

/** The attach key: the launcher's own picker, then the same question as `/attach`. */
export async function attachPicked<W>(ctx: ActionContext<W>): Promise<void> {
	const { host, worker } = ctx;
	const path = await host.pickFile(host.cwd);
	host.redraw();
	if (!path || !host.current(worker)) return;
	const outcome = await attachFile(ctx, path);
	if (outcome.kind === "attached" && host.current(worker)) host.post(worker, { kind: "attached", file: outcome.file });
	else if (outcome.kind === "failed") {
		host.post(worker, { kind: "actionDone", action: "paste.key", ok: false, detail: "The file could not be sent" });
	}
}

/** Ctrl+Z: the terminal goes back to the shell until the shell resumes p2. */
export async function suspend<W>(ctx: ActionContext<W>): Promise<void> {
	const { host } = ctx;
	if (host.platform === "win32") return;
	await host.lend(
		() =>
			new Promise<void>((resolve) => {
				process.once("SIGCONT", () => resolve());
				process.kill(process.pid, "SIGTSTP");
				// Without a job-control shell (p2 started as a session's first program: tmux, ssh) the kernel
				// drops the stop; a process that kept running takes the terminal back instead of waiting.
				setTimeout(resolve, NOT_STOPPED_MS);
			}),
	);
	host.redraw();
}
