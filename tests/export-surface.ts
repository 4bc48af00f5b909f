import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import ts from 'typescript';

/**
 * The export surface of every workspace package (issue 25): each name a package's entry (`.`, `./testing`,
 * `./node`) exports is imported by another package, an app, a test kit, a test, a script or a README example. This
 * reads every file with the TypeScript parser (no type check, so it takes a second): the names an entry exports
 * from its own statements, and the names every other unit imports from it, by `import`, `export … from`, `import()`
 * or `import('…').Type`, through a namespace (`import * as C`, `const core = await import(…)`) by the members it
 * reads. An import whose names cannot be read from the file (a namespace passed on whole) is itself a problem, so a
 * use is never guessed. knip (`includeEntryExports`) sees only whether a declaration is used somewhere; this sees
 * whether the package root is the way it is used.
 */

export interface Entry {
  /** `packages/core-index` */
  unit: string;
  /** `@hub/core-index`, `@hub/core-index/testing` */
  specifier: string;
  /** The entry's source file, relative to the repository root. */
  file: string;
}

export interface Surface {
  entries: Entry[];
  /** Exported names per specifier. */
  exported: Map<string, Set<string>>;
  /** Names imported per specifier, from files outside the entry's unit. */
  used: Map<string, Set<string>>;
  /** Roots that are not named, deliberate exports, and imports whose names cannot be read. */
  problems: string[];
}

const SKIP = new Set(['node_modules', 'dist', '.turbo', '.wrangler', '.git', 'test-artifacts', 'coverage']);
const CODE = /\.(ts|mts|tsx|mjs|js)$/;

function walk(dir: string, out: string[] = []): string[] {
  for (const name of readdirSync(dir)) {
    if (SKIP.has(name) || name.startsWith('.')) continue;
    const p = path.join(dir, name);
    if (statSync(p).isDirectory()) walk(p, out);
    else if ((CODE.test(name) && !name.endsWith('.d.ts')) || name === 'README.md') out.push(p);
  }
  return out;
}

/** Every entry a workspace package's `exports` names, mapped from `dist` back to its source. */
export function entriesOf(root: string): Entry[] {
  const out: Entry[] = [];
  for (const group of ['packages', 'apps']) {
    const dir = path.join(root, group);
    if (!existsSync(dir)) continue;
    for (const name of readdirSync(dir).sort()) {
      const pkgFile = path.join(dir, name, 'package.json');
      if (!existsSync(pkgFile)) continue;
      const pkg = JSON.parse(readFileSync(pkgFile, 'utf8')) as { name: string; exports?: Record<string, { import?: string }> };
      for (const [sub, target] of Object.entries(pkg.exports ?? {})) {
        const dist = target.import;
        if (!dist) continue;
        const src = dist.replace(/^\.\/dist\//, 'src/').replace(/\.js$/, '.ts');
        out.push({
          unit: `${group}/${name}`,
          specifier: sub === '.' ? pkg.name : `${pkg.name}/${sub.slice(2)}`,
          file: `${group}/${name}/${src}`,
        });
      }
    }
  }
  return out;
}

function hasExport(node: ts.Node): boolean {
  return ts.canHaveModifiers(node) && (ts.getModifiers(node) ?? []).some((m) => m.kind === ts.SyntaxKind.ExportKeyword);
}

function hasDefault(node: ts.Node): boolean {
  return ts.canHaveModifiers(node) && (ts.getModifiers(node) ?? []).some((m) => m.kind === ts.SyntaxKind.DefaultKeyword);
}

function bindingNames(name: ts.BindingName, out: Set<string>): void {
  if (ts.isIdentifier(name)) out.add(name.text);
  else for (const el of name.elements) if (!ts.isOmittedExpression(el)) bindingNames(el.name, out);
}

/** The names an entry file exports, and what about the file is not a named, deliberate root. */
export function exportsOf(file: string, text: string, problems: string[]): Set<string> {
  const names = new Set<string>();
  const sf = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, false, ts.ScriptKind.TS);
  for (const st of sf.statements) {
    if (ts.isExportDeclaration(st)) {
      const from = st.moduleSpecifier && ts.isStringLiteral(st.moduleSpecifier) ? st.moduleSpecifier.text : undefined;
      if (from?.startsWith('@hub/')) problems.push(`${file}: re-exports ${from}; import it from there instead`);
      if (!st.exportClause) problems.push(`${file}: \`export * from '${from}'\` at a root; name each export`);
      else if (ts.isNamespaceExport(st.exportClause)) names.add(st.exportClause.name.text);
      else for (const el of st.exportClause.elements) names.add(el.name.text);
    } else if (ts.isExportAssignment(st)) {
      names.add('default');
    } else if (hasExport(st)) {
      if (hasDefault(st)) names.add('default');
      else if (ts.isVariableStatement(st)) for (const d of st.declarationList.declarations) bindingNames(d.name, names);
      else if ((ts.isFunctionDeclaration(st) || ts.isClassDeclaration(st)) && st.name) names.add(st.name.text);
      else if (ts.isInterfaceDeclaration(st) || ts.isTypeAliasDeclaration(st) || ts.isEnumDeclaration(st)) names.add(st.name.text);
      else if (ts.isModuleDeclaration(st) && ts.isIdentifier(st.name)) names.add(st.name.text);
    }
  }
  return names;
}

/** Which entry (by specifier) an import specifier in `file` names: `@hub/x`, `@hub/x/sub`, or a path into a package's dist or src. */
function targetOf(spec: string, file: string, root: string, bySource: Map<string, string>, known: Set<string>): string | undefined {
  if (spec.startsWith('@hub/')) return known.has(spec) ? spec : undefined;
  if (!spec.startsWith('.')) return undefined;
  const rel = path
    .relative(root, path.resolve(path.dirname(file), spec))
    .split(path.sep)
    .join('/');
  const src = rel.replace(/^((?:packages|apps)\/[^/]+)\/dist\/(.*)\.js$/, '$1/src/$2.ts').replace(/\.js$/, '.ts');
  return bySource.get(src);
}

const ALL = '*';

interface Found {
  specifier: string;
  names: string[];
}

/** The names one file imports from the entries, by the TypeScript parser. */
export function importsOf(
  file: string,
  text: string,
  resolve: (spec: string) => string | undefined,
  problems: string[],
  where = file,
  outer?: string,
): Found[] {
  const kind = /\.(mjs|js)$/.test(file) ? ts.ScriptKind.JS : ts.ScriptKind.TS;
  const sf = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true, kind);
  const found: Found[] = [];
  const line = (n: ts.Node) => `${where}:${sf.getLineAndCharacterOfPosition(n.getStart(sf)).line + 1}`;

  // A namespace binding: the members read from it. An embedded snippet (code in a string) is read by its members
  // anywhere in the outer file, since the snippet is assembled from several strings.
  const members = (ns: string, decl: ts.Node): string[] => {
    if (outer !== undefined) return [...outer.matchAll(new RegExp(`\\b${ns}\\.([A-Za-z_$][\\w$]*)`, 'g'))].map((m) => m[1] as string);
    const out = new Set<string>();
    let whole = false;
    const visit = (n: ts.Node): void => {
      if (ts.isIdentifier(n) && n.text === ns && n !== decl) {
        const p = n.parent;
        if (ts.isPropertyAccessExpression(p) && p.expression === n) out.add(p.name.text);
        else if (ts.isQualifiedName(p) && p.left === n) out.add(p.right.text);
        else whole = true;
      }
      ts.forEachChild(n, visit);
    };
    visit(sf);
    if (whole) problems.push(`${line(decl)}: namespace \`${ns}\` is used whole; import its names one by one`);
    return [...out];
  };

  const onDynamic = (call: ts.CallExpression, specifier: string): void => {
    let n: ts.Node = call;
    while (ts.isAwaitExpression(n.parent) || ts.isParenthesizedExpression(n.parent)) n = n.parent;
    const p = n.parent;
    if (ts.isVariableDeclaration(p) && ts.isObjectBindingPattern(p.name)) {
      const names: string[] = [];
      for (const el of p.name.elements) {
        const key = el.propertyName ?? el.name;
        if (el.dotDotDotToken || !ts.isIdentifier(key)) names.push(ALL);
        else names.push(key.text);
      }
      found.push({ specifier, names });
    } else if (ts.isVariableDeclaration(p) && ts.isIdentifier(p.name)) {
      found.push({ specifier, names: members(p.name.text, p.name) });
    } else if (ts.isPropertyAccessExpression(p) && p.expression === n) {
      found.push({ specifier, names: [p.name.text] });
    } else {
      problems.push(`${line(call)}: import('${specifier}') is used whole; import its names one by one`);
    }
  };

  const visit = (n: ts.Node): void => {
    if ((ts.isImportDeclaration(n) || ts.isExportDeclaration(n)) && n.moduleSpecifier && ts.isStringLiteral(n.moduleSpecifier)) {
      const specifier = resolve(n.moduleSpecifier.text);
      if (specifier) {
        const names: string[] = [];
        if (ts.isImportDeclaration(n)) {
          const c = n.importClause;
          if (c?.name) names.push('default');
          if (c?.namedBindings && ts.isNamedImports(c.namedBindings))
            for (const el of c.namedBindings.elements) names.push((el.propertyName ?? el.name).text);
          if (c?.namedBindings && ts.isNamespaceImport(c.namedBindings))
            names.push(...members(c.namedBindings.name.text, c.namedBindings.name));
        } else if (!n.exportClause) {
          names.push(ALL);
        } else if (ts.isNamedExports(n.exportClause)) {
          for (const el of n.exportClause.elements) names.push((el.propertyName ?? el.name).text);
        } else {
          names.push(ALL);
        }
        found.push({ specifier, names });
      }
    } else if (ts.isCallExpression(n) && n.expression.kind === ts.SyntaxKind.ImportKeyword) {
      const arg = n.arguments[0];
      const specifier = arg && ts.isStringLiteralLike(arg) ? resolve(arg.text) : undefined;
      if (specifier) onDynamic(n, specifier);
    } else if (ts.isImportTypeNode(n) && ts.isLiteralTypeNode(n.argument) && ts.isStringLiteral(n.argument.literal)) {
      const specifier = resolve(n.argument.literal.text);
      if (specifier) {
        let q = n.qualifier;
        while (q && ts.isQualifiedName(q)) q = q.left;
        if (q) found.push({ specifier, names: [q.text] });
        else problems.push(`${line(n)}: import('${n.argument.literal.text}') type is used whole`);
      }
    } else if (
      (ts.isNoSubstitutionTemplateLiteral(n) || ts.isTemplateExpression(n) || ts.isStringLiteral(n)) &&
      /['"]@hub\//.test(n.getText(sf))
    ) {
      // Code in a string (a snippet a test bundles for a browser or a Worker): read it as code, and read a namespace it
      // binds by the members the whole outer file reads.
      const snippet = ts.isTemplateExpression(n)
        ? [n.head.text, ...n.templateSpans.map((s) => s.literal.text)].join(' undefined ')
        : n.text;
      for (const f of importsOf(`${file}.snippet.ts`, snippet, resolve, problems, line(n), text)) found.push(f);
    }
    ts.forEachChild(n, visit);
  };
  visit(sf);
  return found;
}

/** The code blocks of a README that import from the workspace (its examples). */
function readmeCode(text: string): string {
  const blocks = [...text.matchAll(/```(?:ts|typescript|js|javascript|mjs)\n([\s\S]*?)```/g)].map((m) => m[1] as string);
  return blocks.filter((b) => b.includes('@hub/')).join('\n;\n');
}

/** The whole surface of the repository at `root`. */
export function readSurface(root: string): Surface {
  const entries = entriesOf(root);
  const problems: string[] = [];
  const exported = new Map<string, Set<string>>();
  const used = new Map<string, Set<string>>();
  const bySource = new Map(entries.map((e) => [e.file, e.specifier]));
  const known = new Set(entries.map((e) => e.specifier));
  for (const e of entries) {
    const full = path.join(root, e.file);
    if (!existsSync(full)) {
      problems.push(`${e.specifier}: its source ${e.file} is missing`);
      continue;
    }
    exported.set(e.specifier, exportsOf(e.file, readFileSync(full, 'utf8'), problems));
    used.set(e.specifier, new Set());
  }
  const unitOf = (spec: string) => entries.find((e) => e.specifier === spec)?.unit;
  for (const full of walk(root)) {
    const file = path.relative(root, full).split(path.sep).join('/');
    const raw = readFileSync(full, 'utf8');
    const isReadme = file.endsWith('README.md');
    const text = isReadme ? readmeCode(raw) : raw;
    if (!text.includes('@hub/') && !text.includes('/dist/') && !text.includes('/src/')) continue;
    const resolve = (spec: string) => targetOf(spec, full, root, bySource, known);
    for (const f of importsOf(isReadme ? `${file}.ts` : file, text, resolve, problems, file)) {
      const unit = unitOf(f.specifier);
      // A package's own files do not keep its root alive, except its README: that is how an operator imports it.
      if (!isReadme && unit && file.startsWith(`${unit}/`)) continue;
      const set = used.get(f.specifier);
      if (!set) continue;
      for (const n of f.names) {
        if (n === ALL) for (const x of exported.get(f.specifier) ?? []) set.add(x);
        else set.add(n);
      }
    }
  }
  return { entries, exported, used, problems };
}

/** Names an entry exports that nothing outside its unit imports. */
export function unusedExports(s: Surface): string[] {
  const out: string[] = [];
  for (const e of s.entries) {
    const used = s.used.get(e.specifier) ?? new Set();
    for (const name of s.exported.get(e.specifier) ?? []) if (!used.has(name)) out.push(`${e.specifier}: ${name} (${e.file})`);
  }
  return out;
}

/** Names imported from an entry that it does not export (a README example that no longer works, for one). */
export function missingExports(s: Surface): string[] {
  const out: string[] = [];
  for (const [spec, names] of s.used) {
    const have = s.exported.get(spec) ?? new Set();
    for (const n of names) if (!have.has(n)) out.push(`${spec}: ${n}`);
  }
  return out;
}
