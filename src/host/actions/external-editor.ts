/** Ctrl+G: the person's own editor on the UI's draft, in a private temporary file; the result goes back. */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type ActionContext, errorText } from "./context.ts";

/** A shell-like split without a shell: quotes group words, nothing is expanded. */
export function splitCommand(command: string): string[] {
	const out: string[] = [];
	let word = "";
	let quote: string | undefined;
	let started = false;
	for (const c of command.trim()) {
		if (quote) {
			if (c === quote) quote = undefined;
			else word += c;
		} else if (c === '"' || c === "'") {
			quote = c;
			started = true;
		} else if (/\s/.test(c)) {
			if (started || word) out.push(word);
			word = "";
			started = false;
		} else word += c;
	}
	if (started || word) out.push(word);
	return out;
}

export async function editExternally<W>(ctx: ActionContext<W>): Promise<void> {
	const { host, worker } = ctx;
	const text = await host.ask(worker, "editorText");
	if (text === null || !host.current(worker)) return;
	// The result belongs to the session it was taken from: after a move to another, it is dropped.
	const session = host.session(worker);
	const argv = host.editorCommand();
	const dir = mkdtempSync(join(tmpdir(), "p2-edit-"));
	const file = join(dir, "message.md");
	const failed = (detail: string) =>
		host.post(worker, { kind: "actionDone", action: "editor.external", ok: false, detail });
	try {
		writeFileSync(file, text, { mode: 0o600 });
		const code = await host.lend(async () => {
			const proc = Bun.spawn([...argv, file], {
				stdio: ["inherit", "inherit", "inherit"],
				env: host.env as Record<string, string>,
			});
			return proc.exited;
		});
		host.redraw();
		if (!host.current(worker) || host.session(worker) !== session) return;
		if (code !== 0) return failed(`The editor exited with ${code}; the text is unchanged`);
		host.post(worker, { kind: "editorResult", text: readFileSync(file, "utf8").replace(/\n$/, "") });
	} catch (error) {
		host.redraw();
		// The command and what the system said name local programs and paths: the launcher's notice only.
		host.problem(`editor: ${errorText(error)}`);
		await ctx.notice("The editor could not be started", [`Command: ${argv.join(" ")}`, errorText(error)]);
		if (host.current(worker)) failed("The editor could not be started; the text is unchanged");
	} finally {
		rmSync(dir, { recursive: true, force: true });
	}
}
