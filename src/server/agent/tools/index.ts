import type { AgentTool } from "@earendil-works/pi-agent-core";
import type { Environment } from "../../env/environment.ts";
import { bashTool } from "./bash.ts";
import { editTool } from "./edit.ts";
import { readTool } from "./read.ts";
import { writeTool } from "./write.ts";

export interface ToolOptions {
	/** The machine the tools run on: this device or an SSH environment. */
	readonly env: Environment;
	/** Where the tools run: the session's working directory (on `env`). */
	readonly cwd: string;
	/** Where bash writes the full output of a command whose output was truncated (on the server). */
	readonly spillDir: string;
}

/** pi's default tools, in pi's order. */
export function createTools(options: ToolOptions): AgentTool[] {
	return [
		readTool(options.env, options.cwd),
		bashTool(options.env, options.cwd, options.spillDir),
		editTool(options.env, options.cwd),
		writeTool(options.env, options.cwd),
	] as AgentTool[];
}
