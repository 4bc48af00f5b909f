/**
 * The model id grammar, written once (issue 13). `owner/name` as the model host's own client validates a repository
 * id (huggingface_hub `utils/_validators.py` `validate_repo_id`): each part 1–96 of letters, digits, `_`, `-` and
 * `.`, starting and ending with a letter, digit or `_` (its `\b` word boundaries), and never `--` or `..`. Every
 * caller uses this one function: the upstream run (rows it lists), the account routes (saved models, requests), the
 * missing-model logs of both hosts and of tests (memory, file, KV), MCP's lookup and the dialects' unknown-id
 * recording.
 */
const PART = '[A-Za-z0-9_](?:[A-Za-z0-9_.-]{0,94}[A-Za-z0-9_])?';
const MODEL_ID = new RegExp(`^${PART}/${PART}$`);

/** The longest model id the grammar allows (96 + 1 + 96). */
export const MAX_MODEL_ID_LENGTH = 193;

/**
 * The name a model goes by in OCI distribution (the registry's repository name, the Ollama and Docker Model Runner
 * pull names, the owner's dash alias): lower case, the owner's dots as dashes (an OCI path component may not hold
 * `.` runs as the model host's owners do). The one spelling of that rule: the registry resolves it back through the
 * index's dash aliases (`dashAliasesOf`), the site and the discovery brief write it.
 */
export function ociName(owner: string, name: string): string {
  return `${owner.replace(/\./g, '-')}/${name}`.toLowerCase();
}

/** Is `id` an `owner/name` model id as the model host spells them? */
export function isModelId(id: unknown): id is string {
  return typeof id === 'string' && id.length <= MAX_MODEL_ID_LENGTH && MODEL_ID.test(id) && !id.includes('--') && !id.includes('..');
}
