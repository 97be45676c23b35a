import { Editor, type EditorTheme, matchesKey, Text, TuiAltScreen } from "@earendil-works/pi-tui";
import { accessContract } from "../plugins/access/contract.ts";
import type { GuestHost, LauncherMessage } from "../protocol/channel.ts";
import { ObjectClient } from "../protocol/object-client.ts";
import type { Role } from "../protocol/roles.ts";
import { BridgeTerminal } from "./bridge-terminal.ts";
import { configureProcess } from "./process-shim.ts";
import { parseSnapshot, type ReloadSnapshot, serializeSnapshot } from "./snapshot.ts";

const dim = (s: string) => `\x1b[2m${s}\x1b[22m`;
const ROLE_LABELS: Record<Role, string> = {
	deviceOwner: "this device",
	owner: "owner",
	full: "guest · full access",
	view: "guest · view only",
};

const EDITOR_THEME: EditorTheme = {
	borderColor: (s) => `\x1b[38;5;6m${s}\x1b[39m`,
	selectList: {
		selectedPrefix: (s) => `\x1b[38;5;5m${s}\x1b[39m`,
		selectedText: (s) => `\x1b[38;5;5m${s}\x1b[39m`,
		description: dim,
		scrollInfo: dim,
		noMatch: dim,
	},
};

/** How close two Ctrl+C presses must be to quit (pi's rule: the first clears the editor). */
const DOUBLE_PRESS_MS = 500;

/**
 * The guest's runtime: pi-tui's fullscreen renderer on the bridge terminal, the object client on the relayed
 * frames, and the screen. The chat surface (issue 4) replaces the placeholder body.
 */
export class GuestRuntime {
	readonly #host: GuestHost;
	readonly #terminal: BridgeTerminal;
	readonly #tui: TuiAltScreen;
	readonly #client: ObjectClient;
	readonly #header = new Text("", 1, 0);
	readonly #status = new Text("", 1, 0);
	readonly #editor: Editor;
	#lastCtrlC = 0;
	#role: Role | undefined;
	#connection: "connecting" | "open" | "closed" = "connecting";

	constructor(host: GuestHost) {
		this.#host = host;
		configureProcess({ env: host.start.env, platform: host.start.capabilities.platform });
		this.#terminal = new BridgeTerminal(host);
		this.#tui = new TuiAltScreen(this.#terminal, false, undefined, { mouse: host.start.mouse !== "off" });
		this.#client = new ObjectClient({
			onProtocolError: (message) => host.post({ kind: "log", level: "warn", text: message.slice(0, 4000) }),
		});
		this.#editor = new Editor(this.#tui, EDITOR_THEME, { paddingX: 1 });
		const snapshot = parseSnapshot(host.start.snapshot);
		this.#editor.setText(snapshot?.draft ?? host.start.args.draft);
	}

	start(): void {
		this.#tui.addChild(this.#header);
		this.#tui.addChild(this.#status);
		this.#tui.addChild(this.#editor);
		this.#tui.setFocus(this.#editor);
		this.#tui.addInputListener((data) => this.#onKey(data));
		this.#host.onMessage((message) => this.#onMessage(message));
		const access = this.#client.open(accessContract, {});
		access.onChange((state) => {
			this.#role = state.role;
			this.#render();
		});
		this.#render();
		this.#tui.start();
		this.#terminal.setTitle(`π p2 · ${hostOf(this.#host.start.origin)}`);
		this.#host.post({ kind: "ready" });
	}

	#onKey(data: string): { consume: boolean } | undefined {
		if (matchesKey(data, "ctrl+c")) {
			const now = Date.now();
			if (now - this.#lastCtrlC < DOUBLE_PRESS_MS) this.#exit();
			this.#lastCtrlC = now;
			this.#editor.setText("");
			this.#tui.requestRender();
			return { consume: true };
		}
		if (matchesKey(data, "ctrl+d") && this.#editor.getText() === "") {
			this.#exit();
			return { consume: true };
		}
		return undefined;
	}

	#exit(): void {
		this.#host.post({ kind: "snapshot", data: serializeSnapshot(this.#snapshot()) });
		this.#host.post({ kind: "exit", code: 0 });
	}

	#snapshot(): ReloadSnapshot {
		return { version: 1, draft: this.#editor.getText() };
	}

	#onMessage(message: LauncherMessage): void {
		switch (message.kind) {
			case "input":
				return this.#terminal.input(message.data);
			case "resize":
				return this.#terminal.resize(message.columns, message.rows);
			case "frame":
				return this.#client.receive(message.text);
			case "connection":
				this.#connection = message.state;
				if (message.state === "open") this.#client.attach((text) => this.#host.post({ kind: "frame", text }));
				else this.#client.detach();
				return this.#render();
			case "capabilities":
				return this.#terminal.setCapabilities(message.capabilities);
			case "redraw":
				return this.#tui.requestRender(true);
			case "snapshotRequest":
				return this.#host.post({ kind: "snapshot", data: serializeSnapshot(this.#snapshot()) });
			default:
				return;
		}
	}

	#render(): void {
		const who = this.#role ? ROLE_LABELS[this.#role] : "…";
		this.#header.setText(`\x1b[1mp2\x1b[22m ${dim(`· ${hostOf(this.#host.start.origin)} · ${who}`)}`);
		this.#status.setText(this.#connection === "open" ? "" : dim(`Connecting to ${this.#host.start.origin}…`));
		this.#tui.requestRender();
	}
}

function hostOf(origin: string): string {
	return origin.replace(/^[a-z]+:\/\//, "");
}
