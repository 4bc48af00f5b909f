import { describe, expect, it } from 'vitest';
import { goTemplateProblem } from './go-template.js';

describe('goTemplateProblem', () => {
  it('accepts well-formed templates: nesting, else, trim markers, comments, strings with braces, "}}" in text', () => {
    for (const t of [
      '{{ .Prompt }}',
      '{{- if .System }}<|system|>{{ .System }}{{ end }}{{ if .Prompt }}{{ .Prompt }}{{ end }}',
      '{{- range $i, $m := .Messages }}{{- if eq .Role "user" }}[INST]{{ .Content }}{{- else if eq .Role "assistant" }}{{ .Content }}{{- else }}x{{- end }}{{- end }}',
      "{{- /* a comment with \"quotes\", 'it's' and }} braces */ -}}text",
      '{{ "a }} b" }}',
      '{"name": "{{ .Function.Name }}", "arguments": {{ .Function.Arguments }}}',
      'no actions at all }}',
    ]) {
      expect(goTemplateProblem(t), t).toBeUndefined();
    }
  });

  it('names the first problem of a malformed template', () => {
    expect(goTemplateProblem('{{ if .X }}open')).toMatch(/never closed/);
    expect(goTemplateProblem('{{ end }}')).toMatch(/closes nothing/);
    expect(goTemplateProblem('{{ .Prompt ')).toMatch(/not closed/);
    expect(goTemplateProblem('{{ "unterminated }}')).toMatch(/string/);
    expect(goTemplateProblem('{{ else }}')).toMatch(/outside/);
    expect(goTemplateProblem('{{}}')).toMatch(/empty/);
    expect(goTemplateProblem('{{/* open comment }}')).toMatch(/comment/);
  });
});
