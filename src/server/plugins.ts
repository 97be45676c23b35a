/**
 * The plugins this server enables, in registration order. The only file of the server that names plugins:
 * adding a feature's server part is its folder under `src/plugins` and a line here.
 */
import { accessPlugin } from "../plugins/access/server.ts";
import { artifactsPlugin } from "../plugins/artifacts/server.ts";
import { chatPlugin } from "../plugins/chat/server.ts";
import { chatModePlugin } from "../plugins/chat-mode/server.ts";
import { devReloadPlugin } from "../plugins/dev-reload/server.ts";
import { devicesPlugin } from "../plugins/devices/server.ts";
import { envsPlugin } from "../plugins/envs/server.ts";
import { loginPlugin } from "../plugins/login/server.ts";
import { logsPlugin } from "../plugins/logs/server.ts";
import { modelsPlugin } from "../plugins/models/server.ts";
import { noticesPlugin } from "../plugins/notices/server.ts";
import { pathCompletionPlugin } from "../plugins/path-completion/server.ts";
import { portsPlugin } from "../plugins/ports/server.ts";
import { promptsPlugin } from "../plugins/prompts/server.ts";
import { providersPlugin } from "../plugins/providers/server.ts";
import { searchPlugin } from "../plugins/search/server.ts";
import { sessionsPlugin } from "../plugins/sessions/server.ts";
import { sharingPlugin } from "../plugins/sharing/server.ts";
import { subagentsPlugin } from "../plugins/subagents/server.ts";
import { terminalPlugin } from "../plugins/terminal/server.ts";
import { tuiDefaultsPlugin } from "../plugins/tui-defaults/server.ts";
import { usagePlugin } from "../plugins/usage/server.ts";
import { workspacePlugin } from "../plugins/workspace/server.ts";
import type { ServerPlugin } from "./plugin.ts";

export function defaultPlugins(): ServerPlugin[] {
	return [
		accessPlugin,
		sessionsPlugin,
		modelsPlugin,
		chatPlugin(),
		usagePlugin,
		tuiDefaultsPlugin,
		searchPlugin,
		loginPlugin,
		sharingPlugin(),
		pathCompletionPlugin,
		promptsPlugin(),
		subagentsPlugin,
		workspacePlugin,
		artifactsPlugin,
		logsPlugin,
		noticesPlugin(),
		devicesPlugin,
		providersPlugin,
		devReloadPlugin,
		portsPlugin,
		envsPlugin(),
		chatModePlugin(),
		terminalPlugin(),
	];
}
