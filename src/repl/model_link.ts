/**
 * The REPL's connection to the model: the provider, or why there is none (the REPL runs on
 * without one), the name `/model` chose, and the endpoint's model list for Tab after `/model`.
 * @module
 */
import type { Config } from "../config/mod.ts";
import type { Provider } from "../providers/types.ts";

/** Config keys that choose the provider: changing one reconnects. */
const PROVIDER_KEYS = ["provider", "model", "base_url", "api_key_env"] as const;

/** The model the REPL talks to now. */
export class ModelLink {
  readonly #connect: (config: Config, model: string | undefined) => Promise<Provider>;
  #provider: Provider | null = null;
  #problem = "";
  /** Set by /model: kept when the config is reloaded. */
  #override: string | undefined;
  /** The endpoint's models, for Tab after /model; filled in the background after start. */
  #models: string[] = [];

  /** `connect` builds a provider for the config (and a model name that overrides its own). */
  constructor(connect: (config: Config, model: string | undefined) => Promise<Provider>) {
    this.#connect = connect;
  }

  /** The provider, or null when none answers. */
  get provider(): Provider | null {
    return this.#provider;
  }

  /** The model's name, or null without one. */
  get model(): string | null {
    return this.#provider?.model ?? null;
  }

  /** Why there is no model, with how to configure one; "" when there is one. */
  get problem(): string {
    return this.#problem;
  }

  /** Model names the endpoint listed when last asked; [] before that. */
  get knownModels(): readonly string[] {
    return this.#models;
  }

  /** Connects as the config says; on failure the REPL runs on without a model and says why. */
  async connect(config: Config): Promise<void> {
    try {
      this.#provider = await this.#connect(config, this.#override);
      this.#problem = "";
    } catch (error) {
      if (!(error instanceof Error)) throw error;
      this.#provider = null;
      this.#problem = error.message;
    }
  }

  /** `/model NAME`: connects to `name` at the configured endpoint; throws with how to fix it. */
  async choose(config: Config, name: string): Promise<void> {
    this.#provider = await this.#connect(config, name);
    this.#override = name;
    this.#problem = "";
  }

  /** Asks the endpoint for its models; null when no model is connected to ask through. */
  async listModels(): Promise<string[] | null> {
    if (!this.#provider?.listModels) return null;
    this.#models = await this.#provider.listModels();
    return this.#models;
  }

  /**
   * After the config was reloaded: reconnects when a key that chooses the provider changed
   * (a new `model` replaces the one /model chose); returns whether it did.
   */
  async follow(previous: Config, next: Config): Promise<boolean> {
    const changed = PROVIDER_KEYS.some((key) =>
      JSON.stringify(previous.get(key)) !== JSON.stringify(next.get(key))
    );
    if (!changed) return false;
    if (next.get("model") !== previous.get("model")) this.#override = undefined;
    await this.connect(next);
    return true;
  }
}
