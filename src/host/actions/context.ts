/**
 * What every launcher action gets: the launcher's powers (`ActionsHost`, provided by the launcher) and, per
 * request, the worker that asked, the launcher's question on its own screen and its own notices.
 */
import type { LauncherMessage } from "../../protocol/channel.ts";
import type { Clock } from "../clock.ts";
import type { ConsentRequest, ConsentScreen } from "../trusted-ui.ts";

export interface AttachedFile {
	readonly id: string;
	readonly name: string;
	readonly size: number;
	readonly mimeType: string;
}

export interface ActionsHost<W> {
	readonly consent: ConsentScreen;
	readonly env: Record<string, string | undefined>;
	readonly platform: string;
	readonly clock: Clock;
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
	/** Fetches one version of a session's artifact from the fixed `/artifact` route, the same way. */
	downloadArtifact(session: string, name: string, version: number): Promise<Uint8Array>;
	/** Where downloads go: the launcher-only `downloads` of prefs.json, else ~/Downloads/p2. */
	downloadFolder(): string;
	/** The launcher's file picker; undefined when the person cancelled. */
	pickFile(start: string): Promise<string | undefined>;
	/** Uploads to the fixed `/upload` route with the launcher's credentials. */
	upload(session: string, name: string, bytes: Uint8Array): Promise<AttachedFile>;
	/** A WebSocket to one of the server's relay paths, with the launcher's credentials (never the worker's). */
	openRelay?(path: string): WebSocket;
	/** Ends the owner sign-in with the server (remote servers only; undefined for this device's). */
	signOut?(all: boolean): Promise<void>;
	/** Whether the person just ended a selection with the mouse (once per gesture). */
	selectionGesture(): boolean;
	/** The person's external editor command (launcher-only preferences, $VISUAL, $EDITOR). */
	editorCommand(): string[];
	/** Something for the launcher's log (shown with --verbose and when p2 exits with an error). */
	problem(text: string): void;
}

/** What a request is answered with. A refusal's words are the launcher's, and never name local paths. */
export type Answer =
	| { readonly ok: true; readonly attached?: AttachedFile; readonly forwarded?: string }
	| { readonly ok: false; readonly error: string };

export const DONE: Answer = { ok: true };
export const DECLINED: Answer = { ok: false, error: "declined" };
export const CANCELLED: Answer = { ok: false, error: "cancelled" };
export const FAILED: Answer = { ok: false, error: "failed" };

/** The person's answer to the launcher's question: yes, or why not ("cancelled": withdrawn or moved on). */
export type Decision = "yes" | "declined" | "cancelled";

export interface ActionContext<W> {
	readonly host: ActionsHost<W>;
	readonly worker: W;
	/**
	 * Asks on the launcher's screen. "cancelled" when the question was withdrawn, or the worker is no longer on
	 * screen or (given `session`) shows another session now.
	 */
	ask(request: Omit<ConsentRequest, "origin">, session?: string): Promise<Decision>;
	/** Tells the person on the launcher's own screen (what went wrong, in detail), then lets the UI redraw. */
	notice(title: string, lines: readonly string[]): Promise<void>;
}

/** An error's message, for the launcher's own log and screens. */
export { errorText } from "../../protocol/errors.ts";
