/**
 * What the launcher does for the UI (seed 3.1–3.6b): actions on the person's own keys ("K": copy the last
 * answer, the external editor, suspend) and actions the UI asks for and the person confirms on the launcher's
 * own screen ("C": copy a text, save preferences). Results go back only to the worker that asked, and only
 * while it is still the one on screen.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { LauncherMessage, WorkerMessage } from "../protocol/channel.ts";
import { LAUNCHER_KEY_ACTIONS } from "../protocol/keybindings.ts";
import {
	asBracketedPaste,
	copyToClipboard,
	listClipboard,
	readClipboardFiles,
	readClipboardImage,
	readClipboardText,
} from "./clipboard.ts";
import { MAX_ATTACH_BYTES, type OpenedFile, openLocalFile, resolveLocalPath, saveName, saveNew } from "./local-file.ts";
import { planPrefsSave } from "./prefs-save.ts";
import type { ConsentRequest, ConsentScreen } from "./trusted-ui.ts";

/** The launcher's own keys this launcher has actions for. */
export const KEY_ACTIONS = LAUNCHER_KEY_ACTIONS;
export type KeyAction =
	| "app.message.copy"
	| "app.editor.external"
	| "app.suspend"
	| "app.clipboard.pasteImage"
	| "p2.attach";

type Request = Extract<WorkerMessage, { kind: "request" }>;

export interface ActionsHost<W> {
	readonly consent: ConsentScreen;
	readonly env: Record<string, string | undefined>;
	readonly platform: string;
	origin(): string;
	/** Whether this worker is still the one on screen (a swap or crash ends its actions). */
	current(worker: W): boolean;
	post(worker: W, message: LauncherMessage): void;
	/** Asks the worker for text; null when it has none or does not answer in time. */
	ask(worker: W, question: "copyText" | "editorText"): Promise<string | null>;
	/** Writes to the person's terminal (the launcher's own output). */
	write(data: string): void;
	/** Lends the terminal to a program (or the shell, for suspend) and takes it back. */
	lend<T>(work: () => Promise<T>): Promise<T>;
	/** After the launcher's own screen: the worker's modes back, and a redraw. */
	redraw(): void;
	/** `prefs.json` lives here. */
	readonly p2Dir: string;
	/** The file was written: read the preferences again now. */
	preferencesChanged(): void;
	/** The session the worker last said it shows (uploads go there, never to one the worker names). */
	session(worker: W): string | undefined;
	/** The launcher's own directory: relative paths are the person's, from where they started p2. */
	readonly cwd: string;
	/** Fetches a session's file from the fixed `/download` route with the launcher's credentials (bounded). */
	download(session: string, id: string): Promise<Uint8Array>;
	/** Where downloads go: the launcher-only `downloads` of prefs.json, else ~/Downloads/p2. */
	downloadFolder(): string;
	/** The launcher's file picker; undefined when the person cancelled. */
	pickFile(start: string): Promise<string | undefined>;
	/** Uploads to the fixed `/upload` route with the launcher's credentials. */
	upload(
		session: string,
		name: string,
		bytes: Uint8Array,
	): Promise<{ id: string; name: string; size: number; mimeType: string }>;
	/** Ends the owner sign-in with the server (remote servers only; undefined for this device's). */
	signOut?(all: boolean): Promise<void>;
	/** Whether the person just ended a selection with the mouse (once per gesture). */
	selectionGesture(): boolean;
	/** The person's external editor command (launcher-only preferences, $VISUAL, $EDITOR). */
	editorCommand(): string[];
	problem(text: string): void;
}

/** An address the launcher will hand to the browser: https, no user or password, no control characters. */
export function externalUrl(text: string): string | undefined {
	if (/[\x00-\x20\x7f]/.test(text)) return undefined;
	try {
		const url = new URL(text);
		if (url.protocol !== "https:" || url.username || url.password) return undefined;
		return url.href;
	} catch {
		return undefined;
	}
}

/** The platform's opener, by argv (no shell), detached. */
function openInBrowser(url: string, platform: string): boolean {
	const argv =
		platform === "darwin"
			? ["open", url]
			: platform === "win32"
				? ["rundll32", "url.dll,FileProtocolHandler", url]
				: ["xdg-open", url];
	try {
		const proc = Bun.spawn(argv, { stdin: "ignore", stdout: "ignore", stderr: "ignore" });
		proc.unref();
		return true;
	} catch {
		return false;
	}
}

/** A process still running this long after its own SIGTSTP was not stopped (a stopped one runs no timers). */
const NOT_STOPPED_MS = 300;

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

export function createLauncherActions<W>(host: ActionsHost<W>) {
	let busy = false;
	const once = async (work: () => Promise<void>) => {
		if (busy || host.consent.active) return;
		busy = true;
		try {
			await work();
		} finally {
			busy = false;
		}
	};

	/**
	 * The launcher's own question about a worker's action: "yes", or why not. "cancelled" when the question was
	 * withdrawn, or the worker is no longer on screen or (given `session`) shows another session now.
	 */
	const askPerson = async (
		worker: W,
		request: ConsentRequest,
		session?: string,
	): Promise<"yes" | "declined" | "cancelled"> => {
		const answer = await host.consent.confirm(request);
		host.redraw();
		if (answer === "withdrawn" || !host.current(worker)) return "cancelled";
		if (session !== undefined && host.session(worker) !== session) return "cancelled";
		return answer === "yes" ? "yes" : "declined";
	};

	const copy = (text: string) => copyToClipboard(text, { env: host.env, platform: host.platform, write: host.write });

	/**
	 * A local file to the session on screen: opened and checked by the launcher, named on its screen, uploaded
	 * on a yes. The result is the server's record of it, or why not.
	 */
	const attachFile = async (
		worker: W,
		typed: string,
	): Promise<{ id: string; name: string; size: number; mimeType: string } | string> => {
		const session = host.session(worker);
		if (!session) return "no session is open to send it to";
		const path = resolveLocalPath(typed, host.cwd);
		let file: OpenedFile;
		try {
			file = openLocalFile(path);
		} catch (error) {
			return `${path} ${(error as Error).message}`.slice(0, 300);
		}
		try {
			const confirmed = await askPerson(
				worker,
				{
					origin: host.origin(),
					action: "Send a file from this computer to the server (the UI asked)",
					facts: [
						`File: ${file.path}`,
						`Size: ${file.size.toLocaleString("en-US")} bytes`,
						`Session: ${session}`,
						"The server keeps the file and the model may read it.",
					],
					preview: [],
				},
				session,
			);
			if (confirmed !== "yes") return confirmed;
			const attached = await host.upload(session, file.name, file.read());
			return host.current(worker) ? attached : "cancelled";
		} catch (error) {
			host.problem(`attach: ${(error as Error).message}`);
			return (error as Error).message.slice(0, 300);
		} finally {
			file.close();
		}
	};

	/** A pasted image goes to the open session as a file, once the person said yes. */
	const pasteImage = async (worker: W, image: { bytes: Uint8Array; mimeType: string }) => {
		const session = host.session(worker);
		if (!session) {
			host.post(worker, {
				kind: "actionDone",
				action: "paste.key",
				ok: false,
				detail: "No session is open to send the image to",
			});
			return;
		}
		const name = `clipboard-${new Date().toISOString().replace(/[:.]/g, "-")}.${image.mimeType.split("/")[1]}`;
		const confirmed = await askPerson(
			worker,
			{
				origin: host.origin(),
				action: "Send the image on your clipboard to the server",
				facts: [
					`Type: ${image.mimeType}`,
					`Size: ${image.bytes.length.toLocaleString("en-US")} bytes`,
					`Name: ${name}`,
					`Session: ${session}`,
				],
				preview: [],
			},
			session,
		);
		if (confirmed !== "yes") return;
		try {
			const file = await host.upload(session, name, image.bytes);
			if (host.current(worker)) host.post(worker, { kind: "attached", file });
		} catch (error) {
			host.post(worker, {
				kind: "actionDone",
				action: "paste.key",
				ok: false,
				detail: (error as Error).message.slice(0, 300),
			});
		}
	};

	/** A key the launcher took from raw input. */
	const onKey = (worker: W, action: KeyAction) =>
		once(async () => {
			if (action === "app.message.copy") {
				const text = await host.ask(worker, "copyText");
				if (!host.current(worker)) return;
				if (!text)
					return host.post(worker, { kind: "actionDone", action: "copy.key", ok: false, detail: "Nothing to copy" });
				try {
					await copy(text);
					host.post(worker, {
						kind: "actionDone",
						action: "copy.key",
						ok: true,
						detail: `Copied ${text.length} characters`,
					});
				} catch (error) {
					host.post(worker, { kind: "actionDone", action: "copy.key", ok: false, detail: (error as Error).message });
				}
				return;
			}
			if (action === "app.editor.external") {
				const text = await host.ask(worker, "editorText");
				if (text === null || !host.current(worker)) return;
				// The result belongs to the session it was taken from: after a move to another, it is dropped.
				const session = host.session(worker);
				const argv = host.editorCommand();
				const dir = mkdtempSync(join(tmpdir(), "p2-edit-"));
				const file = join(dir, "message.md");
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
					if (code !== 0) {
						host.post(worker, {
							kind: "actionDone",
							action: "editor.external",
							ok: false,
							detail: `${argv[0]} exited with ${code}; the text is unchanged`,
						});
						return;
					}
					host.post(worker, { kind: "editorResult", text: readFileSync(file, "utf8").replace(/\n$/, "") });
				} catch (error) {
					host.redraw();
					host.post(worker, {
						kind: "actionDone",
						action: "editor.external",
						ok: false,
						detail: `${argv[0]}: ${(error as Error).message}`,
					});
				} finally {
					rmSync(dir, { recursive: true, force: true });
				}
				return;
			}
			if (action === "app.clipboard.pasteImage") {
				// Copied files first (each named on the launcher's screen before it is sent), then pi's order: an
				// image (sent as a file, after a question), else the clipboard's text.
				// One listing of the clipboard for the whole paste: files, then an image, then text.
				const listed = await listClipboard({ env: host.env, platform: host.platform });
				const files = await readClipboardFiles({
					env: host.env,
					platform: host.platform,
					...(listed ? { listed } : {}),
				});
				if (files.length) {
					for (const path of files) {
						if (!host.current(worker)) return;
						const attached = await attachFile(worker, path);
						if (typeof attached !== "string") host.post(worker, { kind: "attached", file: attached });
						else if (attached === "declined" || attached === "cancelled") return;
						else host.post(worker, { kind: "actionDone", action: "paste.key", ok: false, detail: attached });
					}
					return;
				}
				try {
					const image = await readClipboardImage({
						env: host.env,
						platform: host.platform,
						maxBytes: MAX_ATTACH_BYTES,
						...(listed ? { listed } : {}),
					});
					if (image) return await pasteImage(worker, image);
				} catch (error) {
					host.post(worker, { kind: "actionDone", action: "paste.key", ok: false, detail: (error as Error).message });
					return;
				}
				try {
					const text = await readClipboardText({ env: host.env, platform: host.platform });
					if (text && host.current(worker)) host.post(worker, { kind: "input", data: asBracketedPaste(text) });
				} catch (error) {
					host.post(worker, { kind: "actionDone", action: "paste.key", ok: false, detail: (error as Error).message });
				}
				return;
			}
			if (action === "p2.attach") {
				const path = await host.pickFile(host.cwd);
				host.redraw();
				if (!path || !host.current(worker)) return;
				const attached = await attachFile(worker, path);
				if (typeof attached !== "string" && host.current(worker))
					host.post(worker, { kind: "attached", file: attached });
				else if (typeof attached === "string" && attached !== "declined") {
					host.post(worker, { kind: "actionDone", action: "paste.key", ok: false, detail: attached });
				}
				return;
			}
			if (action === "app.suspend") {
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
		});

	/** A request from the worker: refused, or shown on the launcher's screen and done on consent. */
	const onRequest = async (worker: W, message: Request) => {
		const reply = (ok: boolean, error?: string) =>
			host.post(worker, { kind: "response", id: message.id, ok, ...(error ? { error } : {}) });
		if (message.action === "copy.selection") {
			// No screen: the person's own gesture is the consent, and only just after it.
			if (!host.selectionGesture()) return reply(false, "denied");
			try {
				await copy(message.payload.text);
				return reply(true);
			} catch (error) {
				return reply(false, (error as Error).message);
			}
		}
		if (busy || host.consent.active) return reply(false, "another question is open");
		busy = true;
		try {
			if (message.action === "savePrefs") {
				const plan = planPrefsSave(host.p2Dir, message.payload.patch);
				if ("error" in plan) return reply(false, plan.error);
				const confirmed = await askPerson(worker, {
					origin: host.origin(),
					action: "Save display preferences (the UI asked)",
					facts: [`File: ${plan.path}`],
					preview: plan.diff,
				});
				if (confirmed !== "yes") return reply(false, confirmed);
				try {
					plan.write();
				} catch (error) {
					host.problem(`prefs.json: ${(error as Error).message}`);
					return reply(false, "prefs.json could not be written");
				}
				// Read back now rather than when the watcher notices, so the answer finds it applied.
				host.preferencesChanged();
				return reply(true);
			}
			if (message.action === "signOut") {
				if (!host.signOut) return reply(false, "this device's own server has no sign-in to end");
				const { all } = message.payload;
				const confirmed = await askPerson(worker, {
					origin: host.origin(),
					action: all
						? "Sign every owner out of this server (the UI asked)"
						: "Sign out of this server on this device (the UI asked)",
					facts: ["p2 asks for an owner link again afterwards."],
					preview: [],
				});
				if (confirmed !== "yes") return reply(false, confirmed);
				try {
					await host.signOut(all);
					return reply(true);
				} catch (error) {
					host.problem(`sign out: ${(error as Error).message}`);
					return reply(false, "failed");
				}
			}
			if (message.action === "openUrl") {
				const url = externalUrl(message.payload.url);
				if (!url) return reply(false, "only https addresses without credentials are opened");
				const confirmed = await askPerson(worker, {
					origin: host.origin(),
					action: "Open this address in your browser (the UI asked)",
					facts: ["Nothing is added to it; the browser signs in on its own."],
					preview: [url],
				});
				if (confirmed !== "yes") return reply(false, confirmed);
				return openInBrowser(url, host.platform) ? reply(true) : reply(false, "no browser opener on this computer");
			}
			if (message.action === "download") {
				const { session, id, name, size } = message.payload;
				// Only a file of the session on screen, fetched from the fixed route; the name is the server's word.
				if (session !== host.session(worker)) return reply(false, "only files of the session on screen");
				if (!/^[0-9a-f-]{36}$/.test(id)) return reply(false, "not a file id");
				const file = saveName(name);
				const folder = host.downloadFolder();
				const confirmed = await askPerson(worker, {
					origin: host.origin(),
					action: "Save a file from the server on this computer (the UI asked)",
					facts: [
						`Name (server-reported): ${file}`,
						`Size (server-reported): ${size.toLocaleString("en-US")} bytes`,
						`Into: ${folder} (nothing there is replaced)`,
						`Session: ${session}`,
					],
					preview: [],
				});
				if (confirmed !== "yes") return reply(false, confirmed);
				try {
					const bytes = await host.download(session, id);
					saveNew(folder, file, bytes);
					return reply(true);
				} catch (error) {
					host.problem(`download: ${(error as Error).message}`);
					return reply(false, (error as Error).message.slice(0, 300));
				}
			}
			if (message.action === "attach") {
				const session = host.session(worker);
				if (!session) return reply(false, "no session is open to send it to");
				// No path: the launcher's own picker, which the worker never sees.
				const picked = message.payload.path.trim() ? message.payload.path : await host.pickFile(host.cwd);
				if (!message.payload.path.trim()) host.redraw();
				if (!picked) return reply(false, "declined");
				if (!host.current(worker)) return reply(false, "cancelled");
				const attached = await attachFile(worker, picked);
				if (typeof attached === "string") return reply(false, attached);
				return host.post(worker, { kind: "response", id: message.id, ok: true, attached });
			}
			const { text, label } = message.payload as { text: string; label?: string };
			if (!text) return reply(false, "nothing to copy");
			const confirmed = await askPerson(worker, {
				origin: host.origin(),
				action: "Copy to this computer's clipboard (the UI asked)",
				facts: [`Length: ${text.length} characters`, ...(label ? [`What (server-reported): ${label}`] : [])],
				preview: text.split("\n"),
			});
			if (confirmed !== "yes") return reply(false, confirmed);
			try {
				await copy(text);
				return reply(true);
			} catch (error) {
				return reply(false, (error as Error).message);
			}
		} finally {
			busy = false;
		}
	};

	return { onKey, onRequest };
}
