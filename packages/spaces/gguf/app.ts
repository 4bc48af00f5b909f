import { GGMLFileQuantizationType, gguf } from '@huggingface/gguf';
import { encodeId, hubUrl, modelFromUrl, modelTree } from '../shared/hub.js';

const form = document.getElementById('form') as HTMLFormElement;
const modelInput = document.getElementById('model') as HTMLInputElement;
const listButton = document.getElementById('list') as HTMLButtonElement;
const fileSelect = document.getElementById('file') as HTMLSelectElement;
const status = document.getElementById('status') as HTMLElement;
const facts = document.getElementById('facts') as HTMLElement;
const isGguf = (p: string) => /\.gguf$/i.test(p) && !/mmproj/i.test(p);

function show(id: string, text: string): void {
  (document.getElementById(id) as HTMLElement).textContent = text;
}

async function listFiles(): Promise<void> {
  const id = modelInput.value.trim();
  if (!id) return;
  fileSelect.replaceChildren();
  try {
    status.className = '';
    status.textContent = `Listing ${id}…`;
    const files = (await modelTree(id)).filter((e) => isGguf(e.path));
    for (const f of files) fileSelect.append(new Option(`${f.path} (${f.size} bytes)`, f.path));
    status.textContent = files.length ? `${files.length} GGUF file(s) in ${id}.` : `${id} has no GGUF file.`;
  } catch (e) {
    status.className = 'error';
    status.textContent = (e as Error).message;
  }
}

listButton.addEventListener('click', () => void listFiles());
form.addEventListener('submit', async (ev) => {
  ev.preventDefault();
  const id = modelInput.value.trim();
  if (!fileSelect.value) await listFiles();
  const path = fileSelect.value;
  if (!id || !path) return;
  // The hub answers with a redirect to a live source; fetch follows it and the Range requests go there.
  const url = hubUrl(`/${encodeId(id)}/resolve/main/${path.split('/').map(encodeURIComponent).join('/')}`);
  facts.hidden = true;
  status.className = '';
  status.textContent = `Reading the header of ${path}…`;
  try {
    const { metadata, tensorInfos, parameterCount } = await gguf(url, { computeParametersCount: true });
    const md = metadata as Record<string, unknown>;
    const arch = String(md['general.architecture'] ?? 'unknown');
    const ft = md['general.file_type'];
    const quant = typeof ft === 'number' ? (GGMLFileQuantizationType[ft] ?? `file type ${ft}`) : 'not stated';
    show('architecture', arch);
    show('quantisation', quant);
    show('context', String(md[`${arch}.context_length`] ?? 'not stated'));
    show('parameters', parameterCount.toLocaleString('en'));
    show('tensors', String(tensorInfos.length));
    show('name', String(md['general.name'] ?? ''));
    show('url', url);
    facts.hidden = false;
    status.textContent = `Read ${path}.`;
  } catch (e) {
    status.className = 'error';
    status.textContent = `Could not read ${path}: ${(e as Error).message}`;
  }
});

modelInput.value = modelFromUrl();
if (modelInput.value) void listFiles();
