/**
 * The launcher's clipboard writer: the platform's own tool first (pbcopy, clip, wl-copy, xclip, xsel), then
 * OSC 52 written by the launcher itself when the terminal is the only way (a remote or headless session).
 * The worker's own OSC 52 is always filtered out.
 */

export const MAX_COPY_CHARS = 1024 * 1024;
/** What terminals accept in one OSC 52 (base64 of about 74 KB). */
const MAX_OSC52_BYTES = 100_000;

type Env = Record<string, string | undefined>;

/** Runs a clipboard tool by argv (no shell), feeding it `input`; its output when it succeeds in 5 s, else undefined. */
async function runTool(argv: string[], env: Env, input?: string): Promise<Uint8Array | undefined> {
	try {
		const proc = Bun.spawn(argv, {
			stdin: input === undefined ? "ignore" : "pipe",
			stdout: "pipe",
			stderr: "ignore",
			env: env as Record<string, string>,
		});
		if (input !== undefined && proc.stdin) {
			proc.stdin.write(input);
			await proc.stdin.end();
		}
		const timer = setTimeout(() => proc.kill(), 5000);
		const out = new Uint8Array(await new Response(proc.stdout).arrayBuffer());
		clearTimeout(timer);
		return (await proc.exited) === 0 ? out : undefined;
	} catch {
		return undefined;
	}
}

function tools(platform: string, env: Env): string[][] {
	if (platform === "darwin") return [["pbcopy"]];
	if (platform === "win32") return [["clip"]];
	const out: string[][] = [];
	if (env.TERMUX_VERSION) out.push(["termux-clipboard-set"]);
	if (env.WAYLAND_DISPLAY) out.push(["wl-copy"]);
	if (env.DISPLAY) out.push(["xclip", "-selection", "clipboard"], ["xsel", "--clipboard", "--input"]);
	return out;
}

export interface ClipboardOptions {
	readonly env: Env;
	readonly platform: string;
	/** Writes to the person's terminal (the launcher's own output, not the worker's). */
	write(data: string): void;
	/** The tool runner, replaceable in tests. */
	run?(argv: string[], input: string): Promise<boolean>;
}

/** Copies text; resolves with how, or rejects with what the person can do about it. */
export async function copyToClipboard(text: string, options: ClipboardOptions): Promise<"native" | "terminal"> {
	const runner =
		options.run ?? (async (argv: string[], input: string) => (await runTool(argv, options.env, input)) !== undefined);
	for (const argv of tools(options.platform, options.env)) if (await runner(argv, text)) return "native";
	const { env } = options;
	const remote = Boolean(env.SSH_CONNECTION || env.SSH_CLIENT || env.SSH_TTY);
	const headless = options.platform === "linux" && !env.DISPLAY && !env.WAYLAND_DISPLAY;
	if (remote || headless) {
		const encoded = Buffer.from(text, "utf8").toString("base64");
		if (encoded.length > MAX_OSC52_BYTES) throw new Error("the text is too long for the terminal's clipboard");
		options.write(`\x1b]52;c;${encoded}\x07`);
		return "terminal";
	}
	if (env.WAYLAND_DISPLAY) throw new Error("no clipboard tool: install wl-clipboard (wl-copy)");
	if (env.DISPLAY) throw new Error("no clipboard tool: install xclip or xsel");
	throw new Error("no clipboard is available");
}

function readers(platform: string, env: Env): string[][] {
	if (platform === "darwin") return [["pbpaste"]];
	if (platform === "win32") return [["powershell", "-NoProfile", "-Command", "Get-Clipboard -Raw"]];
	const out: string[][] = [];
	if (env.TERMUX_VERSION) out.push(["termux-clipboard-get"]);
	if (env.WAYLAND_DISPLAY) out.push(["wl-paste", "--no-newline", "--type", "text"]);
	if (env.DISPLAY) out.push(["xclip", "-selection", "clipboard", "-o"], ["xsel", "--clipboard", "--output"]);
	return out;
}

/** The clipboard's text (bounded), through the platform's tool; rejects with what the person can do. */
export async function readClipboardText(options: {
	readonly env: Env;
	readonly platform: string;
	read?(argv: string[]): Promise<string | undefined>;
}): Promise<string> {
	const reader =
		options.read ??
		(async (argv: string[]) => {
			const out = await runTool(argv, options.env);
			return out && new TextDecoder().decode(out);
		});
	const tried = readers(options.platform, options.env);
	for (const argv of tried) {
		const text = await reader(argv);
		if (text !== undefined) return text.slice(0, MAX_COPY_CHARS);
	}
	throw new Error(tried.length ? "the clipboard could not be read" : "no clipboard is available here");
}

/** Pasted text as the terminal would deliver it: a bracketed paste, controls other than newline and tab removed. */
export function asBracketedPaste(text: string): string {
	const clean = text.replace(/\r\n?/g, "\n").replace(/[\x00-\x08\x0b-\x1f\x7f-\x9f]/g, "");
	return `\x1b[200~${clean}\x1b[201~`;
}

const IMAGE_TYPES = ["image/png", "image/jpeg", "image/webp", "image/gif"];

type Reader = (argv: string[]) => Promise<Uint8Array | undefined>;

/** What the clipboard holds (Wayland or X11): its types, and how to read one of them. */
export interface ClipboardListing {
	readonly types: readonly string[];
	get(type: string): string[];
}

/** The first clipboard tool that answers, with the types it lists; undefined when none can say. */
export async function listClipboard(options: {
	readonly env: Env;
	readonly platform: string;
	read?: Reader;
}): Promise<ClipboardListing | undefined> {
	if (options.platform !== "linux") return undefined;
	const reader = options.read ?? ((argv: string[]) => runTool(argv, options.env));
	const tools: { list: string[]; get: (type: string) => string[] }[] = [];
	if (options.env.WAYLAND_DISPLAY)
		tools.push({ list: ["wl-paste", "--list-types"], get: (t) => ["wl-paste", "--type", t] });
	if (options.env.DISPLAY) {
		tools.push({
			list: ["xclip", "-selection", "clipboard", "-t", "TARGETS", "-o"],
			get: (t) => ["xclip", "-selection", "clipboard", "-t", t, "-o"],
		});
	}
	for (const tool of tools) {
		const listed = await reader(tool.list);
		if (listed) return { types: new TextDecoder().decode(listed).split(/\s+/), get: tool.get };
	}
	return undefined;
}

/** macOS: the clipboard's PNG, which AppleScript prints as `«data PNGf<hex>»`. */
export const MAC_IMAGE_COMMAND = ["osascript", "-e", "the clipboard as «class PNGf»"];

/** Windows: the clipboard's image saved as PNG and printed as base64 (the clipboard needs a single-threaded apartment). */
export const WINDOWS_IMAGE_COMMAND = [
	"powershell",
	"-NoProfile",
	"-STA",
	"-Command",
	"Add-Type -AssemblyName System.Windows.Forms; Add-Type -AssemblyName System.Drawing; $img = [System.Windows.Forms.Clipboard]::GetImage(); if ($img) { $ms = New-Object System.IO.MemoryStream; $img.Save($ms, [System.Drawing.Imaging.ImageFormat]::Png); [Convert]::ToBase64String($ms.ToArray()) }",
];

/** Windows: the files copied in Explorer, one full path a line. */
export const WINDOWS_FILES_COMMAND = [
	"powershell",
	"-NoProfile",
	"-STA",
	"-Command",
	"Get-Clipboard -Format FileDropList | ForEach-Object { $_.FullName }",
];

/** The PNG a platform's tool printed (hex from AppleScript, base64 from PowerShell); undefined when none. */
export function decodePrintedImage(platform: string, printed: string): Uint8Array | undefined {
	const text = printed.trim();
	if (platform === "darwin") {
		const hex = /^«data PNGf([0-9A-Fa-f]+)»$/.exec(text)?.[1];
		return hex && hex.length % 2 === 0 ? Uint8Array.from(Buffer.from(hex, "hex")) : undefined;
	}
	if (!/^[A-Za-z0-9+/]+={0,2}$/.test(text)) return undefined;
	return Uint8Array.from(Buffer.from(text, "base64"));
}

/** What a PNG starts with: a tool's output that is anything else is not taken for an image. */
const PNG_SIGNATURE = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];

/**
 * An image on the clipboard (Wayland or X11; macOS and Windows as PNG), as pi pastes one; undefined when there is
 * none or no tool can say. The size is bounded like an upload. `listed`: the listing already made for this paste.
 */
export async function readClipboardImage(options: {
	readonly env: Env;
	readonly platform: string;
	readonly maxBytes: number;
	read?: Reader;
	listed?: ClipboardListing;
}): Promise<{ bytes: Uint8Array; mimeType: string } | undefined> {
	const reader = options.read ?? ((argv: string[]) => runTool(argv, options.env));
	if (options.platform === "darwin" || options.platform === "win32") {
		const printed = await reader(options.platform === "darwin" ? MAC_IMAGE_COMMAND : WINDOWS_IMAGE_COMMAND);
		// Text of at most twice the bound (hex) before it is decoded.
		if (!printed?.length) return undefined;
		if (printed.length > 2 * options.maxBytes + 64) throw new Error("the clipboard's image is larger than 25 MiB");
		const bytes = decodePrintedImage(options.platform, new TextDecoder().decode(printed));
		if (!bytes || !PNG_SIGNATURE.every((byte, i) => bytes[i] === byte)) return undefined;
		if (bytes.length > options.maxBytes) throw new Error("the clipboard's image is larger than 25 MiB");
		return { bytes, mimeType: "image/png" };
	}
	const listing = options.listed ?? (await listClipboard(options));
	const type = IMAGE_TYPES.find((t) => listing?.types.includes(t));
	if (!listing || !type) return undefined;
	const bytes = await reader(listing.get(type));
	if (!bytes?.length) return undefined;
	if (bytes.length > options.maxBytes) throw new Error("the clipboard's image is larger than 25 MiB");
	return { bytes, mimeType: type };
}

/** At most this many copied files are offered from one paste. */
export const MAX_PASTED_FILES = 10;

/** `file://` lines of a `text/uri-list` as local paths; anything else (comments, other schemes, hosts) is dropped. */
export function filePathsOf(uriList: string): string[] {
	const paths: string[] = [];
	for (const line of uriList.split(/\r?\n/)) {
		const text = line.trim();
		if (!text.startsWith("file://")) continue;
		try {
			const url = new URL(text);
			if (url.host && url.host !== "localhost") continue;
			const path = decodeURIComponent(url.pathname);
			if (path.startsWith("/") && !path.includes("\0")) paths.push(path);
		} catch {}
		if (paths.length >= MAX_PASTED_FILES) break;
	}
	return paths;
}

/** Full Windows paths, one a line (a drive's, or a share's); anything else is dropped. */
export function windowsPathsOf(lines: string): string[] {
	const paths: string[] = [];
	for (const line of lines.split(/\r?\n/)) {
		const path = line.trim();
		if (!/^(?:[A-Za-z]:\\|\\\\[^\\]+\\)/.test(path) || path.includes("\0")) continue;
		paths.push(path);
		if (paths.length >= MAX_PASTED_FILES) break;
	}
	return paths;
}

/**
 * Files copied in a file manager (Finder, Explorer, Nautilus, Dolphin…): their local paths, or an empty list when the
 * clipboard holds none or no tool can say. Only the paths are read here; each file is opened and checked later.
 */
export async function readClipboardFiles(options: {
	readonly env: Env;
	readonly platform: string;
	read?: Reader;
	listed?: ClipboardListing;
}): Promise<string[]> {
	const reader = options.read ?? ((argv: string[]) => runTool(argv, options.env));
	const text = async (argv: string[]) => {
		const out = await reader(argv);
		return out ? new TextDecoder().decode(out) : undefined;
	};
	if (options.platform === "darwin") {
		const path = await text(["osascript", "-e", "POSIX path of (the clipboard as «class furl»)"]);
		return path?.trim().startsWith("/") ? [path.trim()] : [];
	}
	if (options.platform === "win32") return windowsPathsOf((await text(WINDOWS_FILES_COMMAND)) ?? "");
	const listing = options.listed ?? (await listClipboard(options));
	if (!listing?.types.includes("text/uri-list")) return [];
	return filePathsOf((await text(listing.get("text/uri-list"))) ?? "");
}
