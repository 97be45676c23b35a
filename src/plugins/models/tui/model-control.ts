/**
 * What the model commands act on: the open conversation's model and thinking level (the chat's, through its
 * `conversation` service), or the defaults for new sessions when none is open; the owner's catalog; the run's
 * scope; and the screen they answer on. A guest is told what the session uses, never the catalog.
 */
import { failureText, type GuestUi } from "../../../guest/layout.ts";
import type { GuestContext } from "../../../guest/plugin.ts";
import { isOwnerRole } from "../../../protocol/roles.ts";
import { THINKING_LEVELS, type ThinkingLevel } from "../../../protocol/thinking-levels.ts";
import type { ModelInfo } from "../contract.ts";
import type { ModelCatalog } from "./catalog.ts";
import type { RunScope } from "./run-scope.ts";

export class ModelControl {
	readonly ui: GuestUi;
	readonly catalog: ModelCatalog;
	readonly runScope: RunScope;
	readonly #guest: GuestContext;

	constructor(guest: GuestContext, catalog: ModelCatalog, runScope: RunScope) {
		this.#guest = guest;
		this.ui = guest.ui;
		this.catalog = catalog;
		this.runScope = runScope;
	}

	isOwner(): boolean {
		return isOwnerRole(this.#guest.session.role);
	}

	/** The open conversation's object (the chat's), if one is open. */
	chat() {
		return this.#guest.services.get("conversation")?.ref;
	}

	/** The thinking levels of the open conversation's model; undefined when it does not think. */
	levels(): readonly ThinkingLevel[] | undefined {
		const model = this.chat()?.state?.model;
		if (!model?.reasoning) return undefined;
		return model.thinkingLevels.length ? model.thinkingLevels : THINKING_LEVELS;
	}

	/** A guest learns what the session uses, never the catalog. */
	tellGuest(): void {
		const state = this.chat()?.state;
		const model = state?.model;
		this.ui.notice(
			model
				? `Model: ${model.provider}/${model.id}${model.reasoning ? ` (thinking: ${state?.thinkingLevel})` : ""}. The session's owner chooses the model.`
				: "The session's owner chooses the model.",
		);
	}

	/**
	 * Uses a model for the open conversation (with a level, from a scope's `:level`), or as the default for new
	 * sessions when none is open: the conversation's new state, or undefined for the default.
	 */
	async useModel(model: ModelInfo, level?: ThinkingLevel | null) {
		const chat = this.chat();
		if (!chat) {
			await this.catalog.ref.call("setDefault", { provider: model.provider, id: model.id });
			this.ui.notice(`Default model: ${model.provider}/${model.id}`);
			return undefined;
		}
		await chat.ready;
		return chat.call("configure", {
			model: { provider: model.provider, id: model.id },
			...(level ? { thinkingLevel: level } : {}),
		});
	}

	/** The open conversation's thinking level, or the default model's when none is open. */
	async setLevel(level: ThinkingLevel): Promise<void> {
		const chat = this.chat();
		if (!chat) {
			const { state } = await this.catalog.models();
			if (!state.default) throw new Error("No default model to set a thinking level for.");
			await this.catalog.ref.call("setDefault", { ...state.default, thinkingLevel: level });
			return this.ui.notice(`Default thinking level: ${level}`);
		}
		await chat.call("configure", { thinkingLevel: level });
		this.ui.notice(`Thinking level: ${level}`);
	}

	/** Runs a command's work; what fails is said in the transcript (pi's "Error: …"). */
	async attempt(work: () => Promise<unknown>): Promise<void> {
		try {
			await work();
		} catch (error) {
			this.ui.notice(failureText(error), "error");
		}
	}
}
