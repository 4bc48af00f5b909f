/**
 * Map a GGUF chat template (Jinja) to an Ollama Go template with `@huggingface/ollama-utils`.
 *
 * The mapping table is large (a few hundred KB), so it is loaded on first use only: code that never
 * maps a template never pays for it.
 */
export interface OllamaTemplate {
  /** the Go text/template for Ollama's `.template` layer */
  template: string;
  /** options for Ollama's `.params` layer (e.g. `stop`); absent when the mapping gives none */
  params?: Record<string, unknown>;
  /** which mapping matched: an Ollama library model, `custom-matching` or `auto-conversion` */
  from: string;
}

/** The Ollama template for a chat template, or undefined when there is none or no mapping fits. */
export async function ollamaTemplateFor(
  chatTemplate: string | undefined,
  tokens: { bos_token?: string; eos_token?: string } = {},
): Promise<OllamaTemplate | undefined> {
  if (!chatTemplate) return undefined;
  const { convertGGUFTemplateToOllama } = await import('@huggingface/ollama-utils');
  let mapped: ReturnType<typeof convertGGUFTemplateToOllama>;
  try {
    mapped = convertGGUFTemplateToOllama({ chat_template: chatTemplate, ...tokens });
  } catch {
    // e.g. "OuteTTS is not a text model"
    return undefined;
  }
  if (!mapped?.ollama.template) return undefined;
  const params = mapped.ollama.params && Object.keys(mapped.ollama.params).length > 0 ? { ...mapped.ollama.params } : undefined;
  return { template: mapped.ollama.template, from: mapped.model, ...(params ? { params } : {}) };
}
