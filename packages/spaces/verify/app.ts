import { sha256 } from '@noble/hashes/sha2';
import { bytesToHex } from '@noble/hashes/utils';
import { el, modelFromUrl, modelTree, type TreeEntry } from '../shared/hub.js';

/** SHA-256 of a file read as a stream: memory stays at one piece, whatever the file's size. */
export async function sha256OfFile(file: Blob, progress?: (done: number) => void): Promise<string> {
  const h = sha256.create();
  const reader = file.stream().getReader();
  let done = 0;
  for (;;) {
    const { value, done: end } = await reader.read();
    if (end) break;
    h.update(value);
    done += value.byteLength;
    progress?.(done);
  }
  return bytesToHex(h.digest());
}

/** The index entry a picked file stands for: its folder path inside the model, else its name when that is unique. */
function entryFor(file: File, tree: TreeEntry[]): TreeEntry | undefined {
  const rel = (file as File & { webkitRelativePath?: string }).webkitRelativePath ?? '';
  if (rel) {
    // Drop the picked folder's own name: `tiny-llama/model.gguf` → `model.gguf`.
    const inside = rel.split('/').slice(1).join('/');
    const exact = tree.find((e) => e.path === inside || e.path === rel);
    if (exact) return exact;
  }
  const exact = tree.find((e) => e.path === file.name);
  if (exact) return exact;
  const byName = tree.filter((e) => e.path.split('/').pop() === file.name);
  return byName.length === 1 ? byName[0] : undefined;
}

const form = document.getElementById('form') as HTMLFormElement;
const modelInput = document.getElementById('model') as HTMLInputElement;
const filesInput = document.getElementById('files') as HTMLInputElement;
const folderInput = document.getElementById('folder') as HTMLInputElement;
const status = document.getElementById('status') as HTMLElement;
const table = document.getElementById('results') as HTMLTableElement;
const tbody = table.querySelector('tbody') as HTMLTableSectionElement;

modelInput.value = modelFromUrl();
// Either picker is enough.
for (const input of [filesInput, folderInput]) {
  input.addEventListener('change', () => {
    filesInput.required = !(folderInput.files && folderInput.files.length > 0);
  });
}

function row(path: string, result: string, cls: string, detail: string): void {
  const tr = el('tr');
  tr.className = cls;
  tr.dataset.path = path;
  tr.append(el('td', path), el('td', result, cls), el('td', detail, 'hash'));
  tbody.append(tr);
}

form.addEventListener('submit', async (ev) => {
  ev.preventDefault();
  tbody.replaceChildren();
  table.hidden = false;
  const id = modelInput.value.trim();
  const files = [...(filesInput.files ?? []), ...(folderInput.files ?? [])];
  if (!id || files.length === 0) {
    status.textContent = 'Name a model and pick at least one file.';
    return;
  }
  let tree: TreeEntry[];
  try {
    status.textContent = `Reading the index for ${id}…`;
    tree = await modelTree(id);
  } catch (e) {
    status.textContent = (e as Error).message;
    status.className = 'error';
    return;
  }
  let matches = 0;
  let mismatches = 0;
  let unknown = 0;
  for (const [i, file] of files.entries()) {
    const entry = entryFor(file, tree);
    const shown = entry?.path ?? file.name;
    if (!entry) {
      unknown++;
      row(shown, 'not in this model', 'unknown', `${id} lists ${tree.length} files; none is named ${file.name}`);
      continue;
    }
    const got = await sha256OfFile(file, (done) => {
      status.textContent = `Hashing ${i + 1}/${files.length} ${file.name}: ${Math.floor((100 * done) / Math.max(1, file.size))}%`;
    });
    if (got === entry.oid && file.size === entry.size) {
      matches++;
      row(shown, 'match', 'match', got);
    } else {
      mismatches++;
      row(shown, 'mismatch', 'mismatch', `expected ${entry.oid} (${entry.size} bytes), got ${got} (${file.size} bytes)`);
    }
  }
  status.className = mismatches > 0 ? 'error' : '';
  status.textContent = `${matches} match, ${mismatches} mismatch${unknown ? `, ${unknown} not in ${id}` : ''}.`;
});
