/** The transcript's images as the launcher draws them: named by conversation, entry and place, fetched by `image`. */
import type { ObjectRef } from "../../../protocol/object-client.ts";
import type { ImageDisplay, ImageItem, InlineImageParts } from "../../../ui/inline-image.ts";
import type { chatContract } from "../contract.ts";

/** The launcher keeps images by an id of at most 64 characters: a long one is shortened to a hash of itself. */
export function imageId(session: string, conversation: string, seq: number, index: number): string {
	const id = `${session}:${conversation}:${seq}:${index}`;
	if (id.length <= 64) return id;
	let hash = 0x811c9dc5;
	for (let i = 0; i < id.length; i++) hash = Math.imul(hash ^ id.charCodeAt(i), 0x01000193) >>> 0;
	return `${id.slice(0, 40)}~${hash.toString(16)}:${seq}:${index}`.slice(0, 64);
}

export function entryImageParts(
	display: ImageDisplay,
	chat: () => ObjectRef<typeof chatContract> | undefined,
): InlineImageParts {
	return {
		display,
		source(image: ImageItem) {
			const ref = chat();
			const { session, conversation } = ref?.input ?? { session: "", conversation: "" };
			return {
				id: imageId(session, conversation, image.seq, image.index),
				mimeType: image.mimeType,
				...(image.width ? { width: image.width } : {}),
				...(image.height ? { height: image.height } : {}),
				load: async () => {
					if (!ref) throw new Error("no conversation is open");
					return (await ref.call("image", { seq: image.seq, index: image.index })).png;
				},
			};
		},
	};
}
