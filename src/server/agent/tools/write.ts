import type { AgentTool } from "@earendil-works/pi-agent-core";
import { obj, str } from "@earendil-works/pi-schema";
import type { Environment } from "../../env/environment.ts";
import { resolveToolPath } from "./paths.ts";

const parameters = obj({
	path: str({ description: "Path to the file to write (relative or absolute)" }),
	content: str({ description: "Content to write to the file" }),
});

export function writeTool(env: Environment, cwd: string): AgentTool<typeof parameters> {
	return {
		name: "write",
		label: "write",
		description:
			"Write content to a file. Creates the file if it doesn't exist, overwrites it if it does, and creates parent directories.",
		parameters,
		async execute(_id, { path, content }, signal) {
			if (signal?.aborted) throw new Error("Operation aborted");
			const absolute = await resolveToolPath(env, cwd, path);
			await env.writeFile(absolute, content);
			return {
				content: [{ type: "text", text: `Successfully wrote ${Buffer.byteLength(content)} bytes to ${path}` }],
				details: undefined,
			};
		},
	};
}
