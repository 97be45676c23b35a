/**
 * Models and thinking, as pi has them: /model (and Ctrl+L) with its selector or a `provider/id` argument,
 * Ctrl+P / Shift+Ctrl+P through the scoped models (or all), /thinking with its selector or a level,
 * Shift+Tab through the model's levels, /scoped-models. The catalog is the server's and the owner's; a guest
 * is told the session's model and that its owner chooses.
 */
import type { CommandRegistry } from "../../../guest/commands.ts";
import type { ModelControl } from "./model-control.ts";
import { modelCycleCommands } from "./model-cycling.ts";
import { modelSelectCommand } from "./model-select-command.ts";
import { scopedModelsCommand } from "./scoped-models-command.ts";
import { thinkingCommands } from "./thinking-commands.ts";

export function registerModelCommands(commands: Pick<CommandRegistry, "register">, models: ModelControl): () => void {
	const removals = [
		modelSelectCommand(models),
		...modelCycleCommands(models),
		...thinkingCommands(models),
		scopedModelsCommand(models),
	].map((command) => commands.register(command));
	return () => {
		for (const remove of removals) remove();
	};
}
