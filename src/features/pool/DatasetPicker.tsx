import { useState } from 'react';
import type { DatasetFile } from '../../protocol/protocol';

/** Folder, zip or drop: turns what the person chose into (path, file) pairs; reads no bytes. */
export function DatasetPicker({ disabled, onChosen }: { disabled: boolean; onChosen: (name: string, files: DatasetFile[]) => void }) {
  const [over, setOver] = useState(false);

  const fromInput = (list: FileList | null) => {
    const files = [...(list ?? [])];
    if (files.length === 0) return;
    const first = files[0]!;
    const rel = (f: File) => f.webkitRelativePath || f.name;
    const top = rel(first).includes('/') ? rel(first).split('/')[0]! : first.name.replace(/\.zip$/i, '');
    onChosen(
      top,
      files.map((f) => ({ path: rel(f).includes('/') ? rel(f).slice(rel(f).indexOf('/') + 1) : rel(f), blob: f })),
    );
  };

  const onDrop = async (event: React.DragEvent) => {
    event.preventDefault();
    event.stopPropagation();
    setOver(false);
    const entries = [...event.dataTransfer.items].map((i) => i.webkitGetAsEntry()).filter((e): e is FileSystemEntry => !!e);
    if (entries.length === 1 && entries[0]!.isDirectory) {
      onChosen(entries[0]!.name, await readDirectory(entries[0] as FileSystemDirectoryEntry, ''));
    } else {
      fromInput(event.dataTransfer.files);
    }
  };

  return (
    <div
      onDragOver={(e) => {
        e.preventDefault();
        e.stopPropagation();
        setOver(true);
      }}
      onDragLeave={() => setOver(false)}
      onDrop={(e) => void onDrop(e)}
      className={`flex flex-col gap-2 rounded-lg border-2 border-dashed p-3 text-sm ${over ? 'border-blue-600 bg-blue-50' : 'border-slate-300'}`}
    >
      <p>
        Load your own dataset: a folder (or zip) with <code>conversations.json</code> and its images (MMDialog format), or a folder of images with a
        <code> .txt</code> file of utterances, one per line. It stays in this browser; nothing is uploaded.
      </p>
      <div className="flex flex-wrap gap-2">
        <label
          className={`cursor-pointer rounded-lg bg-blue-700 px-3 py-1.5 font-medium text-white focus-within:outline focus-within:outline-2 focus-within:outline-blue-600 ${disabled ? 'opacity-50' : 'hover:bg-blue-800'}`}
        >
          Choose a folder…
          <input
            type="file"
            className="sr-only"
            data-testid="dataset-folder-input"
            disabled={disabled}
            multiple
            ref={(el) => el?.setAttribute('webkitdirectory', '')}
            onChange={(e) => {
              fromInput(e.target.files);
              e.target.value = '';
            }}
          />
        </label>
        <label
          className={`cursor-pointer rounded-lg border border-slate-300 px-3 py-1.5 focus-within:outline focus-within:outline-2 focus-within:outline-blue-600 ${disabled ? 'opacity-50' : 'hover:bg-slate-100'}`}
        >
          Choose a zip…
          <input
            type="file"
            accept=".zip,application/zip"
            className="sr-only"
            data-testid="dataset-zip-input"
            disabled={disabled}
            onChange={(e) => {
              fromInput(e.target.files);
              e.target.value = '';
            }}
          />
        </label>
        <span className="self-center text-slate-600">or drop a folder here</span>
      </div>
    </div>
  );
}

async function readDirectory(dir: FileSystemDirectoryEntry, prefix: string): Promise<DatasetFile[]> {
  const reader = dir.createReader();
  const entries: FileSystemEntry[] = [];
  // readEntries returns at most ~100 entries per call: read until it returns none.
  for (;;) {
    const batch = await new Promise<FileSystemEntry[]>((resolve, reject) => reader.readEntries(resolve, reject));
    if (batch.length === 0) break;
    entries.push(...batch);
  }
  const out: DatasetFile[] = [];
  for (const entry of entries) {
    if (entry.isDirectory) out.push(...(await readDirectory(entry as FileSystemDirectoryEntry, `${prefix}${entry.name}/`)));
    else out.push({ path: `${prefix}${entry.name}`, blob: await new Promise<File>((resolve, reject) => (entry as FileSystemFileEntry).file(resolve, reject)) });
  }
  return out;
}
