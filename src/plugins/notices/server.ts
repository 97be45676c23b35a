/**
 * Owner notices: the entries of the core's log that carry a notice tag (a provider refusing its
 * credentials, a full disk, a damaged store moved aside), the disk nearly full (checked here), each kept until
 * dismissed or resolved. A newer notice with the same key replaces the older one. `retry` runs what the
 * notice names through the log's retry handlers.
 */
import { statfsSync } from "node:fs";
import { ProtocolError } from "../../protocol/codes.ts";
import { errorText } from "../../protocol/errors.ts";
import { LiveState, type LogEntry, type ServerPlugin } from "../../server/plugin.ts";
import { MAX_NOTICES, type Notice, type NoticesState, noticesContract } from "./contract.ts";

export interface NoticesOptions {
	/** Free and total bytes of the data directory's disk (tests: a disk nearly full). */
	readonly disk?: (dir: string) => { free: number; total: number };
	/** How often the disk is checked; 5 minutes by default. */
	readonly diskCheckMs?: number;
}

/** Nearly full: less than this share of the disk, and less than this many bytes, left. */
const LOW_SHARE = 0.05;
const LOW_BYTES = 2 * 1024 * 1024 * 1024;
const DISK_KEY = "disk.low";

function statDisk(dir: string): { free: number; total: number } {
	const s = statfsSync(dir);
	return { free: s.bavail * s.bsize, total: s.blocks * s.bsize };
}

const gib = (bytes: number) => `${(bytes / 1024 / 1024 / 1024).toFixed(1)} GiB`;

export function noticesPlugin(options: NoticesOptions = {}): ServerPlugin {
	let timer: ReturnType<typeof setInterval> | undefined;
	let unsubscribe: (() => void) | undefined;
	return {
		name: "notices",
		register(ctx) {
			const live = new LiveState<NoticesState>({ notices: [] });
			/** What each notice retries, by its id: the log's retry name and the notice's key. */
			const retries = new Map<string, { name: string; key: string }>();
			const keys = new Map<string, string>();
			let count = 0;
			const remove = (id: string) => {
				const index = live.state.notices.findIndex((n) => n.id === id);
				if (index < 0) return false;
				live.update([{ op: "splice", path: ["notices"], start: index, remove: 1, items: [] }]);
				retries.delete(id);
				for (const [key, value] of keys) if (value === id) keys.delete(key);
				return true;
			};
			const add = (entry: LogEntry) => {
				if (entry.resolves !== undefined) {
					const id = keys.get(entry.resolves);
					if (id) remove(id);
					return;
				}
				const tag = entry.notice;
				if (!tag) return;
				const before = keys.get(tag.key);
				if (before) remove(before);
				if (live.state.notices.length >= MAX_NOTICES) {
					const oldest = live.state.notices[0];
					if (oldest) remove(oldest.id);
				}
				const notice: Notice = {
					id: `n${++count}`,
					time: entry.time,
					level: entry.level === "debug" ? "info" : entry.level,
					source: entry.source.slice(0, 200),
					text: entry.text.slice(0, 2000),
					retry: tag.retry !== undefined,
				};
				keys.set(tag.key, notice.id);
				if (tag.retry) retries.set(notice.id, { name: tag.retry, key: tag.key });
				live.update([{ op: "push", path: ["notices"], items: [notice] }]);
			};
			// Those raised before this plugin was registered (a damaged store found at start) are in the log already.
			for (const entry of ctx.log.recent()) add(entry);
			unsubscribe = ctx.log.subscribe(add);

			const disk = options.disk ?? statDisk;
			let low = false;
			const checkDisk = (): string => {
				let free: number;
				let total: number;
				try {
					({ free, total } = disk(ctx.dataDir));
				} catch (error) {
					return `The disk could not be checked: ${errorText(error)}`;
				}
				const nowLow = free < LOW_BYTES && free < total * LOW_SHARE;
				if (nowLow && !low) {
					ctx.log.warn("server", `The server's disk is nearly full: ${gib(free)} of ${gib(total)} left.`, {
						key: DISK_KEY,
						retry: "disk",
					});
				} else if (!nowLow && low) {
					ctx.log.resolve("server", DISK_KEY, `The server's disk has ${gib(free)} free again.`);
				}
				low = nowLow;
				return nowLow ? `Still nearly full: ${gib(free)} left.` : `The disk has ${gib(free)} free.`;
			};
			ctx.log.onRetry("disk", () => checkDisk());
			checkDisk();
			timer = setInterval(checkDisk, options.diskCheckMs ?? 5 * 60_000);
			timer.unref?.();

			ctx.host.serve(noticesContract, {
				open: () => ({
					state: live,
					methods: {
						dismiss({ id }) {
							if (!remove(id)) throw new ProtocolError("not_found", "that notice is gone");
							return null;
						},
						async retry({ id }) {
							const retry = retries.get(id);
							if (!live.state.notices.some((n) => n.id === id))
								throw new ProtocolError("not_found", "that notice is gone");
							if (!retry) throw new ProtocolError("bad_args", "there is nothing to retry for this notice");
							try {
								return { message: (await ctx.log.retry(retry.name, retry.key)).slice(0, 2000) };
							} catch (error) {
								throw new ProtocolError("unavailable", `Retry failed: ${errorText(error)}`.slice(0, 2000));
							}
						},
					},
				}),
			});
		},
		close() {
			clearInterval(timer);
			unsubscribe?.();
		},
	};
}
