/** An SSH machine of envs.json made usable by the owner (its host key accepted), and a session there. */
import { envsContract } from "../../src/plugins/envs/contract.ts";
import { sessionsContract } from "../../src/plugins/sessions/contract.ts";
import type { TestClient } from "./p2-server.ts";

/** Tests the machine `name` and accepts the host keys it offered, as the owner does in /envs. */
export async function acceptHostKey(owner: TestClient, name: string): Promise<void> {
	const envs = await owner.open(envsContract, {});
	const tested = await envs.call("test", { name });
	await envs.call("acceptKey", { name, fingerprints: tested.hostKey?.offered.map((k) => k.fingerprint) ?? [] });
}

/** A new session on the machine `name`, in `cwd` there, after its host key is accepted. */
export async function sessionOn(owner: TestClient, name: string, cwd: string): Promise<string> {
	await acceptHostKey(owner, name);
	const sessions = await owner.open(sessionsContract, {});
	return (await sessions.call("create", { cwd, env: name })).id;
}
