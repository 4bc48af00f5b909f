import { describe, expect, it } from 'vitest';
import { ollamaTemplateFor } from './ollama-template.js';

// SYNTHETIC chat templates, written for this test.
const CHATML =
  "{% for message in messages %}{{'<|im_start|>' + message['role'] + '\\n' + message['content'] + '<|im_end|>' + '\\n'}}{% endfor %}{% if add_generation_prompt %}{{ '<|im_start|>assistant\\n' }}{% endif %}";

describe('ollamaTemplateFor', () => {
  it('maps a ChatML template to a Go template with stop tokens', async () => {
    const t = await ollamaTemplateFor(CHATML);
    expect(t?.template).toContain('{{ .Prompt }}');
    expect(t?.params?.stop).toEqual(expect.arrayContaining(['<|im_end|>']));
  });

  it('gives undefined without a template or for a template it refuses', async () => {
    expect(await ollamaTemplateFor(undefined)).toBeUndefined();
    expect(await ollamaTemplateFor('')).toBeUndefined();
    expect(await ollamaTemplateFor('outetts-0.3 {{ messages }}')).toBeUndefined();
  });
});
