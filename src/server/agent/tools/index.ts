import type { AgentTool } from "@earendil-works/pi-agent-core";
import { bashTool } from "./bash.ts";
import { editTool } from "./edit.ts";
import { readTool } from "./read.ts";
import { writeTool } from "./write.ts";

export interface ToolOptions {
	/** Where the tools run: the session's working directory. */
	readonly cwd: string;
	/** Where bash writes the full output of a command whose output was truncated. */
	readonly spillDir: string;
}

/** pi's default tools, in pi's order. */
export function createTools(options: ToolOptions): AgentTool[] {
	return [
		readTool(options.cwd),
		bashTool(options.cwd, options.spillDir),
		editTool(options.cwd),
		writeTool(options.cwd),
	] as AgentTool[];
}
