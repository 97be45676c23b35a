import { extname } from "node:path";
import type { AgentTool } from "@earendil-works/pi-agent-core";
import { num, obj, opt, str } from "@earendil-works/pi-schema";
import { type Environment, errorCode, type PathInfo } from "../../env/environment.ts";
import { resolveToolPath } from "./paths.ts";
import { formatSize, MAX_BYTES, MAX_LINES, truncateHead } from "./truncate.ts";

const IMAGE_TYPES: Record<string, string> = {
	".png": "image/png",
	".jpg": "image/jpeg",
	".jpeg": "image/jpeg",
	".gif": "image/gif",
	".webp": "image/webp",
};
/** Images larger than this are not sent to the model. */
const MAX_IMAGE_BYTES = 10 * 1024 * 1024;

const parameters = obj({
	path: str({ description: "Path to the file to read (relative or absolute)" }),
	offset: opt(num({ description: "Line number to start reading from (1-indexed)" })),
	limit: opt(num({ description: "Maximum number of lines to read" })),
});

export function readTool(env: Environment, cwd: string): AgentTool<typeof parameters> {
	return {
		name: "read",
		label: "read",
		description: `Read a file. Text files come back as text, truncated to ${MAX_LINES} lines or ${MAX_BYTES / 1024}KB (use offset and limit for more); images (png, jpg, gif, webp) come back as attachments.`,
		parameters,
		async execute(_id, { path, offset, limit }, signal) {
			if (signal?.aborted) throw new Error("Operation aborted");
			const absolute = await resolveToolPath(env, cwd, path);
			const read = async () => {
				try {
					return await env.readFile(absolute);
				} catch (error) {
					const code = errorCode(error);
					if (!code) throw error;
					if (code === "ENOENT") throw new Error(`File not found: ${path}`);
					if (code === "EISDIR") throw new Error(`${path} is a directory; use bash to list it`);
					throw new Error(`Could not read ${path}: ${code}`);
				}
			};
			const mimeType = IMAGE_TYPES[extname(absolute).toLowerCase()];
			if (mimeType) {
				// An image's size is checked before it is read (text is read at once: one round trip on a remote machine).
				const info: PathInfo | null = await env.stat(absolute);
				if (!info) throw new Error(`File not found: ${path}`);
				if (info.kind === "directory") throw new Error(`${path} is a directory; use bash to list it`);
				if (info.size > MAX_IMAGE_BYTES)
					throw new Error(`Image ${path} is ${formatSize(info.size)}, over the 10MB limit`);
				const data = (await read()).toString("base64");
				return {
					content: [
						{ type: "text", text: `Read image file [${mimeType}]` },
						{ type: "image", data, mimeType },
					],
					details: undefined,
				};
			}
			const text = (await read()).toString("utf8").replace(/^\uFEFF/, "");
			const all = text.split("\n");
			if (all.length > 1 && all.at(-1) === "") all.pop();
			const total = all.length;
			const start = offset ? Math.max(0, Math.floor(offset) - 1) : 0;
			if (start >= total && total > 0) throw new Error(`Offset ${offset} is beyond end of file (${total} lines total)`);
			const end = limit === undefined ? total : Math.min(total, start + Math.max(1, Math.floor(limit)));
			const t = truncateHead(all.slice(start, end));
			const first = start + 1;
			let out: string;
			if (t.firstLineExceedsLimit) {
				out = `[Line ${first} is larger than the ${formatSize(MAX_BYTES)} limit. Use bash: sed -n '${first}p' ${path} | head -c ${MAX_BYTES}]`;
			} else if (t.truncated) {
				const last = first + t.outputLines - 1;
				const limitNote = t.truncatedBy === "bytes" ? ` (${formatSize(MAX_BYTES)} limit)` : "";
				out = `${t.content}\n\n[Showing lines ${first}-${last} of ${total}${limitNote}. Use offset=${last + 1} to continue.]`;
			} else if (end < total) {
				out = `${t.content}\n\n[${total - end} more lines in file. Use offset=${end + 1} to continue.]`;
			} else {
				out = t.content;
			}
			return { content: [{ type: "text", text: out }], details: t.truncated ? { truncated: true } : undefined };
		},
	};
}
