import { describe, expect, test } from "bun:test";
import { setKeybindings } from "@earendil-works/pi-tui";
import { buildKeymap } from "../../../src/guest/keymap.ts";
import type { LoginFlow } from "../../../src/plugins/login/contract.ts";
import { LoginDialog } from "../../../src/plugins/login/tui-dialog.ts";
import { Theme } from "../../../src/ui/theme/theme.ts";
import { ThemeRef } from "../../../src/ui/theme/theme-ref.ts";

const keymap = buildKeymap({ platform: "linux", windowsKeys: false }, [], {});
setKeybindings(keymap.manager);
const plain = (lines: string[]) => lines.join("\n").replace(/\x1b\[[0-9;]*m|\x1b_[^\x07]*\x07/g, "");

function dialog() {
	const answers: string[] = [];
	const asked: string[] = [];
	let cancelled = 0;
	const d = new LoginDialog({
		theme: new ThemeRef(Theme.ansi()),
		providerName: "Loopy Cloud",
		keys: (id) => keymap.keys(id),
		answer: (prompt, value) => answers.push(`${prompt.id}=${value}`),
		cancel: () => cancelled++,
		openUrl: (url) => asked.push(`open ${url}`),
		copy: (url) => asked.push(`copy ${url}`),
	});
	return { d, answers, asked, cancelled: () => cancelled, screen: () => plain(d.render(100)) };
}
const flow = (over: Partial<LoginFlow>): LoginFlow => ({
	id: "f",
	provider: "loopy",
	method: "oauth",
	status: "running",
	events: [],
	prompt: null,
	...over,
});

describe("the login dialog", () => {
	test("a secret is masked while typed and never shown after it is sent", () => {
		const { d, answers, screen } = dialog();
		d.update(flow({ prompt: { id: "p1", type: "secret", message: "Enter the API key" } }));
		for (const c of "sk-secret") d.handleInput(c);
		expect(screen()).toContain("> •••••••••");
		expect(screen()).not.toContain("sk-secret");
		d.handleInput("\r");
		expect(answers).toEqual(["p1=sk-secret"]);
		d.update(flow({ prompt: null }));
		expect(screen()).toContain("Answer sent.");
		expect(screen()).not.toContain("sk-secret");
	});

	test("the URL and device code are text; a select question takes the option's id; Esc cancels", () => {
		const { d, answers, asked, cancelled, screen } = dialog();
		d.update(
			flow({
				events: [
					{ type: "auth_url", url: "https://auth.example/authorize?x=1", instructions: "Sign in there" },
					{
						type: "device_code",
						userCode: "ABCD-1234",
						verificationUri: "https://example/device",
						expiresInSeconds: 600,
					},
					{ type: "progress", message: "Waiting…" },
				],
				prompt: {
					id: "p2",
					type: "select",
					message: "Which account?",
					options: [
						{ id: "work", label: "Work" },
						{ id: "home", label: "Home", description: "personal" },
					],
				},
			}),
		);
		const shown = screen();
		expect(shown).toContain("Login to Loopy Cloud");
		expect(shown).toContain("https://auth.example/authorize?x=1");
		expect(shown).toContain("Open https://example/device and enter the code:");
		expect(shown).toContain("ABCD-1234");
		expect(shown).toContain("The code expires in 10 min.");
		expect(shown).toContain("→ Work");
		// The address is offered to the browser once (through the launcher's question); Ctrl+X asks to copy it.
		expect(asked).toEqual(["open https://auth.example/authorize?x=1"]);
		d.handleInput("\x18");
		expect(asked).toEqual(["open https://auth.example/authorize?x=1", "copy https://auth.example/authorize?x=1"]);
		d.handleInput("\x1b[B");
		d.handleInput("\r");
		expect(answers).toEqual(["p2=home"]);
		d.update(flow({ prompt: null }));
		d.handleInput("\x1b");
		expect(cancelled()).toBe(1);
	});
});
