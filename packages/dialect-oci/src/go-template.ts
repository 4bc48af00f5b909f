/**
 * A structural check of a Go text/template: actions are closed, strings inside them are closed,
 * and `if`/`range`/`with`/`block`/`define` pair with `end` (with `else` only where Go allows it).
 * Ollama fails to load a model whose template does not parse, so a mapped template that fails this
 * check is left out of the manifest (Ollama then uses its default template).
 *
 * Returns a description of the first problem, or undefined when the template is well formed.
 * It does not type-check fields or functions, which Go only does when it executes.
 */
export function goTemplateProblem(template: string): string | undefined {
  const stack: string[] = [];
  let i = 0;
  for (;;) {
    // Text outside actions may hold anything, "}}" included; only "{{" starts an action.
    const open = template.indexOf('{{', i);
    if (open === -1) break;
    let j = open + 2;
    let quote: string | undefined;
    let close = -1;
    // A comment ({{/* … */}} or {{- /* … */ -}}) may hold quotes and braces.
    const comment = /^(?:-\s+)?\/\*/.exec(template.slice(j, j + 64));
    if (comment) {
      const end = template.indexOf('*/', j + comment[0].length);
      if (end === -1) return `the comment at ${open} is not closed`;
      const after = /^(?:\s+-)?}}/.exec(template.slice(end + 2, end + 64));
      if (!after) return `the comment at ${open} is not followed by "}}"`;
      i = end + 2 + after[0].length;
      continue;
    }
    while (j < template.length) {
      const c = template[j] as string;
      if (quote) {
        if (c === '\\' && quote !== '`') j++;
        else if (c === quote) quote = undefined;
      } else if (c === '"' || c === '`' || c === "'") quote = c;
      else if (c === '}' && template[j + 1] === '}') {
        close = j;
        break;
      }
      j++;
    }
    if (close === -1) return quote ? `a string in the action at ${open} is not closed` : `the action at ${open} is not closed`;
    let body = template.slice(open + 2, close);
    if (body.startsWith('-') && /^-\s/.test(body)) body = body.slice(1);
    if (/\s-$/.test(body)) body = body.slice(0, -1);
    body = body.trim();
    const word = /^[a-z]+/.exec(body)?.[0];
    if (word === 'if' || word === 'range' || word === 'with' || word === 'block' || word === 'define') stack.push(word);
    else if (word === 'else') {
      const top = stack[stack.length - 1];
      if (top !== 'if' && top !== 'range' && top !== 'with') return `"else" at ${open} is outside if, range or with`;
    } else if (word === 'end') {
      if (!stack.pop()) return `"end" at ${open} closes nothing`;
    } else if (body === '') return `empty action at ${open}`;
    i = close + 2;
  }
  if (stack.length) return `"${stack[stack.length - 1]}" is never closed with "end"`;
  return undefined;
}
