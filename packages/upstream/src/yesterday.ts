import {
  type Address,
  type BuildModelInput,
  type CatalogObject,
  type ModelObject,
  ModelObjectSchema,
  type ObjectStore,
  readCatalog,
  type SourceObject,
  SourceObjectSchema,
} from '@hub/core-index';
import { rowFacts, type UpstreamRow } from './model.js';
import { readJson } from './state.js';

/** Yesterday's catalog: its model objects (reused for unchanged revisions) and its sources (kept on a transient failure). */
export class Yesterday {
  private constructor(
    private readonly objects: ObjectStore,
    private readonly catalog: CatalogObject | undefined,
  ) {}

  static async open(objects: ObjectStore): Promise<Yesterday> {
    const current = await objects.readRef('current');
    if (!current) return new Yesterday(objects, undefined);
    // A sharded catalog is joined; an unreadable one counts as no yesterday, as before.
    const catalog = await readCatalog(objects, current as Address).catch(() => undefined);
    return new Yesterday(objects, catalog);
  }

  async model(id: string): Promise<ModelObject | undefined> {
    const entry = this.catalog?.objects[id];
    if (!entry) return undefined;
    const parsed = ModelObjectSchema.safeParse(await readJson(this.objects, entry.model));
    return parsed.success ? parsed.data : undefined;
  }

  async sources(id: string): Promise<Array<Omit<SourceObject, 'kind' | 'model' | 'revision'>>> {
    const entry = this.catalog?.objects[id];
    const out: Array<Omit<SourceObject, 'kind' | 'model' | 'revision'>> = [];
    for (const a of entry?.sources ?? []) {
      const parsed = SourceObjectSchema.safeParse(await readJson(this.objects, a));
      if (!parsed.success) continue;
      const { kind: _k, model: _m, revision: _r, ...rest } = parsed.data;
      out.push(rest);
    }
    return out;
  }

  /** Yesterday's model as today's build input (its files, facts and sources; today's listing row when there is one). */
  async input(row: UpstreamRow, listed: boolean): Promise<BuildModelInput | undefined> {
    const m = await this.model(row.id);
    if (!m) return undefined;
    return {
      id: m.id,
      revision: m.revision,
      license: m.license,
      files: m.files,
      facts: m.facts,
      // its verdicts too: a kept model is yesterday's object, signature and scan included
      ...(m.signature ? { signature: m.signature } : {}),
      ...(m.scan ? { scan: m.scan } : {}),
      row: rowFacts(row, listed),
      sources: await this.sources(row.id),
    };
  }
}
