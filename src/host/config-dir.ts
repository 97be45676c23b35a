import { homedir } from "node:os";
import { join } from "node:path";

/** The launcher's own directory: its config file, kept bundles and prefs.json (not the server's data directory). */
export function configDir(env: Record<string, string | undefined>): string {
	return env.P2_TUI_CONFIG_DIR ?? join(env.HOME ?? homedir(), ".pi", "p2-tui");
}
