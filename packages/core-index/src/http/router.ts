import type { Route } from './contract.js';

/**
 * A precompiled route table: a tree of path segments where static segments win over `:param`,
 * and `:param` wins over a trailing `*rest`. Matching walks the raw (still percent-encoded) path
 * once; parameters are decoded only on a match.
 */
interface Node<D> {
  statics: Map<string, Node<D>>;
  param?: { name: string; node: Node<D> };
  rest?: { name: string; routes: Map<string, Route<D>> };
  routes: Map<string, Route<D>>;
}

export type MatchResult<D> =
  | { kind: 'found'; route: Route<D>; params: Record<string, string> }
  /** The path exists but not for this method; `allowed` lists the methods that do. `sample` is any route there. */
  | { kind: 'method'; allowed: string[]; sample: Route<D> }
  | { kind: 'none' }
  /** A segment could not be percent-decoded. */
  | { kind: 'bad-encoding'; sample?: Route<D> };

function newNode<D>(): Node<D> {
  return { statics: new Map(), routes: new Map() };
}

export class Router<D> {
  private readonly root: Node<D> = newNode();

  constructor(routes: Route<D>[] = []) {
    for (const r of routes) this.add(r);
  }

  add(route: Route<D>): void {
    const segments = splitPath(route.path);
    let node = this.root;
    for (let i = 0; i < segments.length; i++) {
      const seg = segments[i] as string;
      if (seg.startsWith('*')) {
        if (i !== segments.length - 1) throw new Error(`route ${route.path}: *rest must be last`);
        node.rest ??= { name: seg.slice(1), routes: new Map() };
        if (node.rest.name !== seg.slice(1)) throw new Error(`route ${route.path}: conflicting rest name`);
        addMethod(node.rest.routes, route);
        return;
      }
      if (seg.startsWith(':')) {
        const name = seg.slice(1);
        node.param ??= { name, node: newNode() };
        if (node.param.name !== name) throw new Error(`route ${route.path}: conflicting param name ${name} vs ${node.param.name}`);
        node = node.param.node;
      } else {
        let next = node.statics.get(seg);
        if (!next) {
          next = newNode();
          node.statics.set(seg, next);
        }
        node = next;
      }
    }
    addMethod(node.routes, route);
  }

  /** Match a raw path (percent-encoded, no query). HEAD matches GET routes. */
  match(method: string, rawPath: string): MatchResult<D> {
    const segments = rawPath.length === 1 ? ROOT_SEGMENTS : splitPath(rawPath);
    const captured: string[] = [];
    const found = walk(this.root, segments, 0, captured, []);
    if (!found) return { kind: 'none' };
    const { routes, names, restFrom } = found;
    const m = method === 'HEAD' ? 'GET' : method;
    const route = routes.get(m);
    const sample = routes.values().next().value as Route<D>;
    if (!route) {
      const allowed = [...routes.keys()];
      if (allowed.includes('GET')) allowed.push('HEAD');
      return { kind: 'method', allowed, sample };
    }
    const params: Record<string, string> = {};
    try {
      for (let i = 0; i < names.length; i++) {
        const raw = captured[i] as string;
        params[names[i] as string] = raw.indexOf('%') === -1 ? raw : decodeURIComponent(raw);
      }
      if (restFrom !== undefined && found.restName) {
        const rest = segments.slice(restFrom).join('/');
        params[found.restName] =
          rest.indexOf('%') === -1
            ? rest
            : segments
                .slice(restFrom)
                .map((s) => decodeURIComponent(s))
                .join('/');
      }
    } catch {
      return { kind: 'bad-encoding', sample: route };
    }
    return { kind: 'found', route, params };
  }
}

function addMethod<D>(map: Map<string, Route<D>>, route: Route<D>): void {
  if (map.has(route.method)) throw new Error(`duplicate route ${route.method} ${route.path}`);
  map.set(route.method, route);
}

interface Found<D> {
  routes: Map<string, Route<D>>;
  names: string[];
  restFrom?: number;
  restName?: string;
}

function walk<D>(node: Node<D>, segs: string[], i: number, captured: string[], names: string[]): Found<D> | undefined {
  if (i === segs.length) {
    if (node.routes.size > 0) return { routes: node.routes, names: [...names] };
    return undefined;
  }
  const seg = segs[i] as string;
  const stat = node.statics.get(seg);
  if (stat) {
    const r = walk(stat, segs, i + 1, captured, names);
    if (r) return r;
  }
  if (node.param && seg !== '') {
    captured.push(seg);
    names.push(node.param.name);
    const r = walk(node.param.node, segs, i + 1, captured, names);
    if (r) return r;
    captured.pop();
    names.pop();
  }
  if (node.rest && seg !== '') {
    return { routes: node.rest.routes, names: [...names], restFrom: i, restName: node.rest.name };
  }
  return undefined;
}

const ROOT_SEGMENTS = [''];

/** `/a/b/` → `['a', 'b', '']`; `/` → `['']`. A trailing slash is a distinct (empty) last segment. */
function splitPath(path: string): string[] {
  return path.slice(1).split('/');
}
