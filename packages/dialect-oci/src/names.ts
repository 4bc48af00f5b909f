import { type IndexedModel, type IndexStore, isModelId, type Later, lookUp, whenReady } from '@hub/core-index';

/** Why `owner/name` cannot be a repository name, or undefined when it can. */
export function invalidName(owner: string, name: string): string | undefined {
  // the model host's id grammar, the one definition in core-index
  if (!isModelId(`${owner}/${name}`))
    return 'each of {owner} and {name} is 1 to 96 letters, digits, ".", "_" or "-", starting and ending with a letter, digit or "_", without "--" or "..".';
  return undefined;
}

/**
 * The model a repository name stands for: case-insensitive, then through a dash alias (Ollama cannot pull a namespace
 * that contains `.` (protocols.md 4.1), so `my.org/model` is also reachable as `my-org/model`; the index keeps the
 * aliases). At once when the model is warm.
 */
export function findModel(index: IndexStore, owner: string, name: string): Later<IndexedModel | undefined> {
  const id = `${owner}/${name}`;
  return whenReady(lookUp(index, id), (m) => m ?? index.dashAlias(id));
}
