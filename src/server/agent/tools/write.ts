import { mkdir, writeFile } from "node:fs/promises";
import { dirname } from "node:path";
import type { AgentTool } from "@earendil-works/pi-agent-core";
import { obj, str } from "@earendil-works/pi-schema";
import { resolveToolPath } from "./paths.ts";

const parameters = obj({
	path: str({ description: "Path to the file to write (relative or absolute)" }),
	content: str({ description: "Content to write to the file" }),
});

export function writeTool(cwd: string): AgentTool<typeof parameters> {
	return {
		name: "write",
		label: "write",
		description:
			"Write content to a file. Creates the file if it doesn't exist, overwrites it if it does, and creates parent directories.",
		parameters,
		async execute(_id, { path, content }, signal) {
			if (signal?.aborted) throw new Error("Operation aborted");
			const absolute = resolveToolPath(cwd, path);
			await mkdir(dirname(absolute), { recursive: true });
			await writeFile(absolute, content, "utf8");
			return {
				content: [{ type: "text", text: `Successfully wrote ${Buffer.byteLength(content)} bytes to ${path}` }],
				details: undefined,
			};
		},
	};
}
