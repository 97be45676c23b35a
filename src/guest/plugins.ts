/**
 * The plugins this guest runs, in registration order (their commands list in this order too). The only file
 * of the guest that names plugins: adding a feature's UI is its folder under `src/plugins` and a line here.
 */
import { accessPlugin } from "../plugins/access/tui.ts";
import { artifactsPlugin } from "../plugins/artifacts/tui.ts";
import { chatPlugin } from "../plugins/chat/tui.ts";
import { chatModePlugin } from "../plugins/chat-mode/tui.ts";
import { devReloadPlugin } from "../plugins/dev-reload/tui.ts";
import { devicesPlugin } from "../plugins/devices/tui.ts";
import { envsPlugin } from "../plugins/envs/tui.ts";
import { loginPlugin } from "../plugins/login/tui.ts";
import { logsPlugin } from "../plugins/logs/tui.ts";
import { modelsPlugin } from "../plugins/models/tui.ts";
import { noticesPlugin } from "../plugins/notices/tui.ts";
import { pathCompletionPlugin } from "../plugins/path-completion/tui.ts";
import { portsPlugin } from "../plugins/ports/tui.ts";
import { promptsPlugin } from "../plugins/prompts/tui.ts";
import { providersPlugin } from "../plugins/providers/tui.ts";
import { searchPlugin } from "../plugins/search/tui.ts";
import { sessionsPlugin } from "../plugins/sessions/tui.ts";
import { sharingPlugin } from "../plugins/sharing/tui.ts";
import { subagentsPlugin } from "../plugins/subagents/tui.ts";
import { terminalPlugin } from "../plugins/terminal/tui.ts";
import { tuiDefaultsPlugin } from "../plugins/tui-defaults/tui.ts";
import { usagePlugin } from "../plugins/usage/tui.ts";
import { workspacePlugin } from "../plugins/workspace/tui.ts";
import type { GuestPlugin } from "./plugin.ts";

// Who this person is (access) is asked for before the saved keys and settings (tui-defaults): the session
// choice waits for it, and their snapshots are then handled in the order asked, so the choice goes out first.
export function guestPlugins(): GuestPlugin[] {
	return [
		chatPlugin,
		sessionsPlugin,
		modelsPlugin,
		pathCompletionPlugin,
		promptsPlugin,
		loginPlugin,
		sharingPlugin,
		usagePlugin,
		searchPlugin,
		accessPlugin,
		tuiDefaultsPlugin,
		subagentsPlugin,
		workspacePlugin,
		artifactsPlugin,
		noticesPlugin,
		logsPlugin,
		devicesPlugin,
		providersPlugin,
		devReloadPlugin,
		portsPlugin,
		envsPlugin,
		chatModePlugin,
		terminalPlugin,
	];
}
