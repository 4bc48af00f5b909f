import { type IndexedModel, type IndexStore, isModelId } from '@hub/core-index';

/** Why `owner/name` cannot be a repository name, or undefined when it can. */
export function invalidName(owner: string, name: string): string | undefined {
  // the model host's id grammar, the one definition in core-index
  if (!isModelId(`${owner}/${name}`))
    return 'each of {owner} and {name} is 1 to 96 letters, digits, ".", "_" or "-", starting and ending with a letter, digit or "_", without "--" or "..".';
  return undefined;
}

/**
 * Dash aliases: Ollama cannot pull a namespace that contains `.` (protocols.md 4.1), so
 * `my.org/model` is also reachable as `my-org/model`. A real repository of that name always wins,
 * and of two dotted owners that give the same alias the first in browse order keeps it.
 */
export function dashAliases(index: IndexStore): ReadonlyMap<string, IndexedModel> {
  return index.memo('oci:dash-aliases', () => {
    const aliases = new Map<string, IndexedModel>();
    for (const m of index.models()) {
      if (!m.owner.includes('.')) continue;
      const alias = `${m.owner.replace(/\./g, '-')}/${m.name}`.toLowerCase();
      if (index.model(alias) || aliases.has(alias)) continue;
      aliases.set(alias, m);
    }
    return aliases;
  });
}

/** The model a repository name stands for: case-insensitive, then through a dash alias. */
export function findModel(index: IndexStore, owner: string, name: string): IndexedModel | undefined {
  const id = `${owner}/${name}`;
  return index.model(id) ?? dashAliases(index).get(id.toLowerCase());
}

/** Every repository name, lowercase (OCI names are lowercase) and in lexical order; aliases are not listed. */
export function catalogNames(index: IndexStore): readonly string[] {
  return index.memo('oci:catalog', () => [...new Set(index.models().map((m) => m.id.toLowerCase()))].sort());
}
